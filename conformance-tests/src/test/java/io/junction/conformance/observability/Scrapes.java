package io.junction.conformance.observability;

import io.junction.conformance.support.RunningBroker;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads one series' value out of the Prometheus text a broker's {@code /metrics} answers. */
final class Scrapes {

    private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)} (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private Scrapes() {
    }

    /**
     * The value of the series {@code name} whose labels include all of {@code labels} (summed over the other labels),
     * or empty when no series matches.
     */
    static OptionalDouble value(final RunningBroker broker, final String name, final Map<String, String> labels) {
        return value(broker.get("/metrics").body(), name, labels);
    }

    static OptionalDouble value(final String text, final String name, final Map<String, String> labels) {
        double sum = 0;
        boolean found = false;
        for (final String line : text.split("\n")) {
            final Matcher m = SERIES.matcher(line);
            if (!m.matches() || !m.group(1).equals(name)) {
                continue;
            }
            final Map<String, String> got = new TreeMap<>();
            final Matcher l = LABEL.matcher(m.group(2));
            while (l.find()) {
                got.put(l.group(1), l.group(2));
            }
            if (got.entrySet().containsAll(labels.entrySet())) {
                sum += Double.parseDouble(m.group(3));
                found = true;
            }
        }
        return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }
}
