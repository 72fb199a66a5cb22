package io.junction.core.meta;

import io.junction.core.StoreError;
import io.junction.core.StoreException;

/**
 * Which topic and group names the store takes: they become directory names, so letters, digits and {@code _ - % | .}
 * only (RocketMQ's set plus the dot), at most 255 characters, never "." or "..". Here, in the contract, so that a
 * front-end deciding whether to create a topic applies the very rule the store enforces.
 */
public final class TopicNames {
    public static final int MAX_LENGTH = 255;

    private TopicNames() {
    }

    public static boolean isValid(final String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_LENGTH || name.equals(".") || name.equals("..")) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            final boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '_' || c == '-' || c == '%' || c == '|' || c == '.';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Throws ILLEGAL_ARGUMENT naming {@code kind} ("topic", "group") when {@code name} is not valid. */
    public static void check(final String kind, final String name) {
        if (!isValid(name)) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, kind + " name '" + name + "' is not valid: use "
                    + "letters, digits and _ - % | . (at most " + MAX_LENGTH + " characters)");
        }
    }
}
