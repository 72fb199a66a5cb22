package io.junction.spi.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * For fuzz targets that drive a front-end: collects log events at WARN or above that carry a stack trace (an
 * exception nobody handled; handled failures are answered or close the connection, and are logged at DEBUG) and
 * Netty leak reports.
 */
public final class ProblemLog extends AppenderBase<ILoggingEvent> {
    private final List<String> seen = new ArrayList<>();

    /** A log attached to the root logger. */
    public static ProblemLog attach() {
        final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        final ProblemLog log = new ProblemLog();
        log.setContext(root.getLoggerContext());
        log.start();
        root.addAppender(log);
        return log;
    }

    @Override
    protected synchronized void append(final ILoggingEvent event) {
        final String text = event.getFormattedMessage();
        if (event.getLevel().isGreaterOrEqual(Level.WARN) && event.getThrowableProxy() != null) {
            seen.add(text + ": " + event.getThrowableProxy().getClassName() + ": "
                    + event.getThrowableProxy().getMessage());
        } else if (text != null && text.contains("LEAK:")) {
            seen.add(text);
        }
    }

    /** Fails on what was logged since the last call, and forgets it (one problem fails one input, not all after). */
    public synchronized void assertNone() {
        try {
            assertThat(seen).as("errors nobody handled, leaks").isEmpty();
        } finally {
            seen.clear();
        }
    }
}
