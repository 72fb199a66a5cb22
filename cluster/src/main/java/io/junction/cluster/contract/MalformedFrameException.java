package io.junction.cluster.contract;

/** A frame whose body does not decode: its connection is closed (the peer does not speak the contract). */
final class MalformedFrameException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedFrameException(final String message) {
        super(message);
    }
}
