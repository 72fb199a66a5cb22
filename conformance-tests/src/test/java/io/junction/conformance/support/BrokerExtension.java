package io.junction.conformance.support;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * The JUnit side of {@link WithBroker}: starts a {@link RunningBroker} before all tests of the class (or before each
 * test with {@link WithBroker#perTest()}), resolves {@link RunningBroker} parameters and closes the broker afterwards.
 * Closing is explicit (not left to the store) so a leak the broker reported fails the class it belongs to.
 */
public final class BrokerExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(BrokerExtension.class);
    private static final String KEY = "broker";

    @Override
    public void beforeAll(final ExtensionContext context) {
        if (!config(context).perTest()) {
            context.getStore(NAMESPACE).put(KEY, start(config(context)));
        }
    }

    @Override
    public void beforeEach(final ExtensionContext context) {
        if (config(context).perTest()) {
            context.getStore(NAMESPACE).put(KEY, start(config(context)));
        }
    }

    @Override
    public void afterEach(final ExtensionContext context) {
        if (config(context).perTest()) {
            close(context);
        }
    }

    @Override
    public void afterAll(final ExtensionContext context) {
        if (!config(context).perTest()) {
            close(context);
        }
    }

    @Override
    public boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context) {
        return parameter.getParameter().getType() == RunningBroker.class;
    }

    @Override
    public Object resolveParameter(final ParameterContext parameter, final ExtensionContext context) {
        final RunningBroker broker = context.getStore(NAMESPACE).get(KEY, RunningBroker.class);
        if (broker == null) {
            throw new ParameterResolutionException("no broker runs yet here: with @WithBroker(perTest = true) take it"
                    + " in a @BeforeEach or test method, not in a constructor or @BeforeAll");
        }
        return broker;
    }

    private static void close(final ExtensionContext context) {
        final RunningBroker broker = context.getStore(NAMESPACE).remove(KEY, RunningBroker.class);
        if (broker != null) {
            broker.close();
        }
    }

    private static RunningBroker start(final WithBroker config) {
        final RunningBroker.Builder builder = RunningBroker.builder().jvmArgs(config.jvmArgs()).seed(seed(config));
        for (final String setting : config.settings()) {
            final int eq = setting.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("@WithBroker setting is not key=value: " + setting);
            }
            builder.set(setting.substring(0, eq), setting.substring(eq + 1));
        }
        return builder.start();
    }

    private static DataDirSeed seed(final WithBroker config) {
        return ReflectionSupport.newInstance(config.seed()); // seeds may be package-private classes of a test package
    }

    private static WithBroker config(final ExtensionContext context) {
        return AnnotationSupport.findAnnotation(context.getRequiredTestClass(), WithBroker.class)
                .orElseThrow(() -> new IllegalStateException("BrokerExtension without @WithBroker"));
    }
}
