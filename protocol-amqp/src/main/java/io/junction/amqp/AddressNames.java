package io.junction.amqp;

import io.junction.spi.CoreNames;

/**
 * The reversible mapping between AMQP addresses (and the names in subscription identities) and core names.
 *
 * <p>Core names take letters, digits and {@code _ - | .}; every other character is written as {@code %XX} per UTF-8
 * byte (upper-case hex) and {@code %} itself as {@code %25}, so {@code orders} stays {@code orders} and
 * {@code a/b} becomes {@code a%2Fb}. {@code .} and {@code ..} become {@code %2E} and {@code %2E%2E}. The same scheme
 * as the MQTT front-end's first topic level, so an AMQP address and an MQTT topic of the same text meet on one core
 * topic. The core's dead-letter and retry topics keep their names (see {@link #isSystem}).
 */
final class AddressNames {
    /** Longest core name the store takes. */
    static final int MAX_CORE_LENGTH = 255;

    private AddressNames() {
    }

    /** The core name of an address, or null when it would be too long for the store. */
    static String toCore(final String address) {
        final String core = isSystem(address) ? address : escape(address);
        return core.isEmpty() || core.length() > MAX_CORE_LENGTH ? null : core;
    }

    static String escape(final String text) {
        return CoreNames.escape(text);
    }

    /**
     * A group's dead-letter or retry topic ({@code %DLQ%<group>}, {@code %RETRY%<group>_<topic>}) named as the core
     * names it, so AMQP clients can read dead letters: such a name passes through as it is.
     */
    static boolean isSystem(final String name) {
        final boolean prefixed = name.startsWith("%DLQ%") || name.startsWith("%RETRY%");
        if (!prefixed) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (!CoreNames.isPlain(c) && c != '%') {
                return false;
            }
        }
        return true;
    }

    /** The address a core topic stands for. */
    static String toAddress(final String core) {
        if (core.indexOf('%') < 0 || isSystem(core)) {
            return core;
        }
        return CoreNames.unescape(core);
    }
}
