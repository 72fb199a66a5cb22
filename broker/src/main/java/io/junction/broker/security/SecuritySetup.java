package io.junction.broker.security;

import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigException;
import io.junction.broker.config.ConfigKeys;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.FailureThrottle;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.SecurePolicy;
import io.junction.tenancy.SecurityEvents;
import io.junction.tenancy.UserDirectory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the broker's {@link AccessControl} from the {@code security.*} keys: the open policy when security is off;
 * otherwise the {@link UserDirectory} kept in {@code <data-dir>/security/users.json}, a bootstrap super user, the
 * failure throttle, and audit counters in {@code /metrics}.
 */
public final class SecuritySetup implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SecuritySetup.class);

    /** Where the user directory lives inside the data directory. */
    public static final String USERS_FILE = "security/users.json";

    private final AccessControl accessControl;
    private final UserDirectory users;
    private final ExecutorService work;

    private SecuritySetup(final AccessControl accessControl, final UserDirectory users, final ExecutorService work) {
        this.accessControl = accessControl;
        this.users = users;
        this.work = work;
    }

    /**
     * @throws ConfigException when security is on without a secret key, or the key does not open the stored secrets
     */
    public static SecuritySetup create(final BrokerConfig config, final MeterRegistry registry)
            throws ConfigException {
        if (!config.bool(ConfigKeys.SECURITY_ENABLED)) {
            return new SecuritySetup(AccessControl.open(), null, null);
        }
        final String key = config.string(ConfigKeys.SECURITY_SECRET_KEY);
        if (key.isEmpty()) {
            throw new ConfigException(ConfigKeys.SECURITY_SECRET_KEY.name()
                    + " must be set when security.enabled=true (it seals the users' signing secrets)");
        }
        final Path file = config.dataDir().resolve(USERS_FILE);
        final UserDirectory users;
        try {
            users = UserDirectory.open(file, new SecretCipher(key));
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
        final String admin = config.string(ConfigKeys.SECURITY_ADMIN_USER);
        final String adminPassword = config.string(ConfigKeys.SECURITY_ADMIN_PASSWORD);
        if (!adminPassword.isEmpty() && users.user(admin).isEmpty()) {
            users.putUser(admin, Principal.DEFAULT_NAMESPACE, true, true, adminPassword, adminPassword);
            LOG.info("Created the super user {}", admin);
        }
        if (users.users().isEmpty()) {
            LOG.warn("Security is on but there are no users: set security.admin-password to create a super user");
        }
        // Password hashing and directory writes: slow, rare, never on an event loop.
        final ExecutorService work = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(10_000), new DefaultThreadFactory("junction-security", true),
                new ThreadPoolExecutor.AbortPolicy());
        final AuditCounters audit = new AuditCounters(registry);
        final SecurePolicy policy = new SecurePolicy(users,
                new FailureThrottle(config.intValue(ConfigKeys.SECURITY_MAX_FAILURES),
                        config.intValue(ConfigKeys.SECURITY_FAILURE_WINDOW_MS), System::nanoTime),
                audit, work, Clock.systemUTC(),
                Duration.ofSeconds(config.intValue(ConfigKeys.SECURITY_MAX_SKEW_SECONDS)));
        return new SecuritySetup(AccessControl.secured(policy, users, audit), users, work);
    }

    public AccessControl accessControl() {
        return accessControl;
    }

    /** The user directory, or null when security is off. */
    public UserDirectory users() {
        return users;
    }

    /** Runs slow security work (hashing, directory writes); null when security is off. */
    public ExecutorService executor() {
        return work;
    }

    @Override
    public void close() {
        if (work != null) {
            work.shutdownNow();
        }
    }

    /**
     * {@code junction_auth_failures_total{protocol,reason}}, {@code junction_acl_denials_total{kind,action}} and
     * {@code junction_quota_refusals_total{refused}}.
     */
    private static final class AuditCounters implements SecurityEvents {
        private final MeterRegistry registry;
        private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();

        AuditCounters(final MeterRegistry registry) {
            this.registry = registry;
        }

        @Override
        public void authenticationFailed(final String protocol, final String reason) {
            counters.computeIfAbsent("f\n" + protocol + '\n' + reason, k -> Counter.builder("junction.auth.failures")
                    .description("Refused authentications").tag("protocol", protocol).tag("reason", reason)
                    .register(registry)).increment();
        }

        @Override
        public void quotaExceeded(final String what) {
            counters.computeIfAbsent("q\n" + what, k -> Counter.builder("junction.quota.refusals")
                    .description("Publishes and connections refused by a namespace quota").tag("refused", what)
                    .register(registry)).increment();
        }

        @Override
        public void denied(final ResourceKind kind, final Action action) {
            counters.computeIfAbsent("d\n" + kind + '\n' + action, k -> Counter.builder("junction.acl.denials")
                    .description("Denied authorizations").tag("kind", kind.name()).tag("action", action.name())
                    .register(registry)).increment();
        }
    }
}
