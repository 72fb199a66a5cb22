package io.junction.cluster.contract;

/**
 * Bytes that do not decode. A request body that does not is answered as a bad request; a frame header or an answer
 * that does not closes the connection (the peer does not speak the contract).
 */
final class MalformedFrameException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedFrameException(final String message) {
        super(message);
    }
}
