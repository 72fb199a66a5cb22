package io.junction.broker;

import io.junction.broker.admin.AdminCommand;
import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigException;
import io.junction.broker.config.ConfigKeys;
import io.junction.broker.config.ConfigLoader;
import io.junction.broker.launch.HeapLauncher;
import io.junction.broker.lifecycle.Broker;
import io.junction.broker.lifecycle.BrokerStartException;
import io.junction.broker.lifecycle.FrontEnds;
import io.junction.broker.netty.NettyTransport;
import io.junction.spi.BuildVersion;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code java -jar junction.jar}: starts the broker in the foreground.
 *
 * <p>Exit codes: 0 after a graceful stop (SIGTERM, Ctrl-C) or for {@code --help}/{@code --version}; 1 when the broker
 * cannot start (store, port); 2 for a bad command line or configuration. Every failure is one line on stderr.
 */
@Command(name = "junction", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        sortOptions = false, subcommands = AdminCommand.class,
        description = "Starts the Junction message broker in the foreground; stop it with Ctrl-C or SIGTERM.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:stopped gracefully, or --help/--version",
            "1:could not start (store, port in use, ...)",
            "2:invalid command line or configuration"})
public final class Main implements Callable<Integer> {

    /** Exit code: the broker could not start. */
    public static final int EXIT_START_FAILED = 1;
    /** Exit code: bad command line or configuration. */
    public static final int EXIT_CONFIG = 2;
    /** Not an exit code: the broker is running and {@code main} returns without exiting. */
    static final int RUNNING = Integer.MIN_VALUE;

    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    /** Picocli's default usage width; the key table wraps within it. */
    private static final int HELP_WIDTH = 80;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Data directory (default ./data); same as --set data.dir=DIR.")
    private Path dataDir;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file in Java properties format (KEY=VALUE lines).")
    private Path configFile;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Sets a configuration key; repeatable; wins over --config and --data-dir.")
    private Map<String, String> overrides = new LinkedHashMap<>();

    private final List<ProtocolFrontEnd> frontEnds;
    private final List<ConfigKey> keys;
    private final PrintWriter err;

    private Main(final List<ProtocolFrontEnd> frontEnds, final List<ConfigKey> keys, final PrintWriter err) {
        this.frontEnds = frontEnds;
        this.keys = keys;
        this.err = err;
    }

    public static void main(final String[] args) {
        final int childExit = HeapLauncher.relaunchIfUnbounded(Main.class, args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        HeapLauncher.watchParentIfLaunched();
        // Netty 4.2 registers JFR allocation events on first use (~100 ms of start-up, on the first request); they
        // serve allocation profiling only. Keep them off unless asked for with -Dio.netty.jfr.enabled=true.
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
        // Netty's leak detection samples one buffer in 128 and records a stack trace for it and for each of its
        // writes: about 1 % of the CPU of an MQTT fan-out. It finds bugs, not faults of the running broker, so the
        // tests run it (paranoid) and the broker does not, unless asked with -Dio.netty.leakDetection.level.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            System.setProperty("io.netty.leakDetection.level", "disabled");
        }
        NettyTransport.preloadInBackground();
        final int code = run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        if (code != RUNNING) {
            System.exit(code);
        }
        // Running: Netty's non-daemon threads keep the JVM alive until a signal runs the shutdown hook.
    }

    /** Parses, configures and starts; returns an exit code, or {@link #RUNNING} once the broker is up. */
    static int run(final String[] args, final PrintWriter out, final PrintWriter err) {
        final List<ProtocolFrontEnd> frontEnds;
        final List<ConfigKey> keys;
        try {
            frontEnds = FrontEnds.discover(Main.class.getClassLoader());
            keys = ConfigKeys.withFrontEnds(frontEnds);
        } catch (final IllegalStateException e) {
            err.println("junction: " + e.getMessage());
            return EXIT_START_FAILED;
        }
        final Main main = new Main(frontEnds, keys, err);
        final CommandLine commandLine = new CommandLine(main)
                .setOut(out)
                .setErr(err)
                .setParameterExceptionHandler((e, a) -> {
                    err.println("junction: " + e.getMessage() + " (see --help)");
                    return EXIT_CONFIG;
                })
                .setExecutionExceptionHandler((e, cl, parsed) -> {
                    err.println("junction: " + describe(e));
                    LOG.debug("start failed", e);
                    return EXIT_START_FAILED;
                });
        commandLine.getCommandSpec().usageMessage()
                .footerHeading("%nConfiguration keys (--set KEY=VALUE, or KEY=VALUE lines in the --config file):%n")
                .footer(keyTable(keys));
        return commandLine.execute(args);
    }

    @Override
    public Integer call() {
        final BrokerConfig config;
        final Broker broker;
        try {
            config = new ConfigLoader(keys).load(configFile, dataDir, overrides);
            broker = Broker.start(config, frontEnds);
        } catch (final ConfigException e) {
            err.println("junction: " + e.getMessage());
            return EXIT_CONFIG;
        } catch (final BrokerStartException e) {
            err.println("junction: " + e.getMessage());
            LOG.debug("start failed", e);
            return EXIT_START_FAILED;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopOnExit(broker), "junction-shutdown"));
        LOG.info("Junction ready in {} ms: {} data={}", ManagementFactory.getRuntimeMXBean().getUptime(),
                broker.endpoints().stream().map(Endpoint::toString).collect(Collectors.joining(" ")),
                broker.dataDir());
        return RUNNING;
    }

    /** Runs in the shutdown hook (SIGTERM, SIGINT). */
    private static void stopOnExit(final Broker broker) {
        LOG.info("Junction stopping");
        final boolean clean = broker.stop();
        LOG.info(clean ? "Junction stopped" : "Junction stopped, but some components failed to close");
        // After a signal the JVM would exit with 128+signal. A graceful stop is a success: report 0 (1 if closing
        // failed). halt() is safe here: the broker was the last thing to shut down and logging flushes per line.
        Runtime.getRuntime().halt(clean ? 0 : EXIT_START_FAILED);
    }

    /** One entry per key: name and default on one line, the meaning wrapped below it (picocli would not indent). */
    private static String keyTable(final List<ConfigKey> keys) {
        final StringBuilder table = new StringBuilder();
        for (final ConfigKey key : keys) {
            final String def = key.defaultValue().isEmpty() ? "(unset)" : key.defaultValue();
            table.append("  ").append(key.name()).append(" = ").append(def).append("  [").append(key.expected())
                    .append("]%n");
            StringBuilder line = new StringBuilder("      ");
            for (final String word : key.description().split(" ")) {
                if (line.length() + word.length() + 1 > HELP_WIDTH && line.length() > 6) {
                    table.append(line).append("%n");
                    line = new StringBuilder("      ");
                }
                line.append(line.length() > 6 ? " " : "").append(word.replace("%", "%%"));
            }
            table.append(line).append("%n");
        }
        return table.toString();
    }

    private static String describe(final Throwable e) {
        final String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    /** The version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"Junction " + BuildVersion.current()};
        }
    }
}
