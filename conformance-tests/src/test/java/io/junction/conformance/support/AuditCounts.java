package io.junction.conformance.support;

/**
 * The broker's audit counters read from {@code /metrics}: a test that must show a client was refused (not merely that
 * nothing arrived yet) waits for the refusal to be counted.
 */
public final class AuditCounts {

    private AuditCounts() {
    }

    /** {@code junction_acl_denials_total} of one resource kind ({@code TOPIC}, {@code GROUP}) and action. */
    public static double denials(final RunningBroker broker, final String kind, final String action) {
        return sum(broker, "junction_acl_denials_total{", "kind=\"" + kind + "\"", "action=\"" + action + "\"");
    }

    /** {@code junction_auth_failures_total} of one protocol, every reason. */
    public static double authFailures(final RunningBroker broker, final String protocol) {
        return sum(broker, "junction_auth_failures_total{", "protocol=\"" + protocol + "\"", "");
    }

    private static double sum(final RunningBroker broker, final String series, final String label,
                              final String otherLabel) {
        double total = 0;
        for (final String line : broker.get("/metrics").body().split("\n")) {
            if (line.startsWith(series) && line.contains(label) && line.contains(otherLabel)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }
}
