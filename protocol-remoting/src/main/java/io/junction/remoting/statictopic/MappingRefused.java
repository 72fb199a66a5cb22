package io.junction.remoting.statictopic;

/** A static-topic mapping this broker does not take; the message is the remark the admin tool shows. */
public final class MappingRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MappingRefused(final String message) {
        super(message, null, false, false);
    }
}
