package io.junction.conformance.overload;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A QoS 0 subscriber that never reads its socket after the SUBACK, with a small receive buffer: the broker's output
 * towards it backs up at once and must stay bounded (write-buffer water marks), not grow with the publish rate.
 */
final class UnreadSubscriber implements AutoCloseable {
    private final Socket socket;

    private UnreadSubscriber(final Socket socket) {
        this.socket = socket;
    }

    static UnreadSubscriber open(final int port, final String filter) throws IOException {
        final Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(10_000);
        s.getOutputStream().write(MqttBytes.connect("unread-subscriber", 600));
        final byte[] connack = MqttBytes.read(s.getInputStream());
        s.getOutputStream().write(MqttBytes.subscribe(filter));
        final byte[] suback = MqttBytes.read(s.getInputStream());
        if (connack[0] != 0x20 || (suback[0] & 0xF0) != 0x90) {
            s.close();
            throw new IOException("subscription refused");
        }
        return new UnreadSubscriber(s);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
