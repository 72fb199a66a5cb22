package io.junction.conformance.crash;

/** One protocol's producer for one round: sends a message and says whether the broker acknowledged it. */
interface Sender extends AutoCloseable {

    /**
     * Sends and waits for the protocol's acknowledgement.
     *
     * @return true only when the acknowledgement arrived and reports success
     * @throws Exception when the connection fails (after the kill, always)
     */
    boolean send(Ledger.Outgoing message) throws Exception;

    /** Closes the client, swallowing the errors a dead broker causes. */
    @Override
    void close();
}
