package io.junction.broker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The broker's logging set up in code: console only, INFO, one line per event. The broker runs in the foreground and
 * its supervisor (systemd, a container runtime, a terminal) keeps the output. Set up in code rather than from a
 * {@code logback.xml} because logback's XML configurator loads an XML parser and its model framework, about a
 * quarter of a second of every start. A file named with {@code -Dlogback.configurationFile} still takes over.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class ConsoleLogging extends ContextAwareBase implements Configurator {
    static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{24} - %msg%n";

    @Override
    public ExecutionStatus configure(final LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        final ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("CONSOLE");
        console.setEncoder(encoder);
        console.start();
        final Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(console);
        // Netty and micrometer are chatty at INFO about their internals.
        context.getLogger("io.netty").setLevel(Level.WARN);
        context.getLogger("io.micrometer").setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
