package io.junction.cluster.proxy.groups;

import io.junction.core.Receipt;
import java.util.Set;

/**
 * A receipt of a message popped from one store group, so its ack goes back there: the text form is the group's name,
 * {@value #SEPARATOR}, then the group's own receipt text. Group names are {@code [a-z0-9-]+} and the core's receipts
 * URL-safe base64, so the first {@value #SEPARATOR} always ends the name; a text without a known group's prefix is
 * the metadata group's (a topic without placement pops there unwrapped).
 */
record GroupedReceipt(String group, Receipt inner) implements Receipt {
    static final char SEPARATOR = '.';

    @Override
    public String sealed() {
        return wrap(group, inner.sealed());
    }

    static String wrap(final String group, final String handle) {
        return group + SEPARATOR + handle;
    }

    /** Where a receipt text goes: the group (null for the metadata group) and the text that group issued. */
    record Routed(String group, String handle) {
        /** The new receipt text a call through this route returned, wrapped as this one was. */
        String rewrap(final String issued) {
            return group == null ? issued : wrap(group, issued);
        }
    }

    static Routed route(final String handle, final Set<String> groups) {
        final int end = handle.indexOf(SEPARATOR);
        if (end > 0) {
            final String group = handle.substring(0, end);
            if (groups.contains(group)) {
                return new Routed(group, handle.substring(end + 1));
            }
        }
        return new Routed(null, handle);
    }
}
