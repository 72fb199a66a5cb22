package io.junction.conformance.remoting;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The event lines the RocketMQ 4.9.x client driver (module {@code conformance-rocketmq4}) prints:
 * {@code EVENT <kind> key=value ...}, values URL-encoded. Any other output line is ignored.
 */
record Client4Events(List<Event> events) {

    /** One line: its kind ({@code sent}, {@code received}, ...) and its fields. */
    record Event(String kind, Map<String, String> fields) {
        String get(final String key) {
            return fields.get(key);
        }

        long number(final String key) {
            return Long.parseLong(fields.get(key));
        }
    }

    static Client4Events parse(final String output) {
        final List<Event> events = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (!line.startsWith("EVENT ")) {
                continue;
            }
            final String[] parts = line.substring("EVENT ".length()).trim().split(" ");
            final Map<String, String> fields = new LinkedHashMap<>();
            for (int i = 1; i < parts.length; i++) {
                final int eq = parts[i].indexOf('=');
                fields.put(parts[i].substring(0, eq),
                        URLDecoder.decode(parts[i].substring(eq + 1), StandardCharsets.UTF_8));
            }
            events.add(new Event(parts[0], fields));
        }
        return new Client4Events(List.copyOf(events));
    }

    /** Events of one kind from one scenario, in the order printed. */
    List<Event> of(final String kind, final String scenario) {
        return select(e -> e.kind().equals(kind) && scenario.equals(e.get("scenario")));
    }

    List<Event> select(final Predicate<Event> filter) {
        return events.stream().filter(filter).toList();
    }
}
