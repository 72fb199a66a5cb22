package io.junction.conformance.overload;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Many connected MQTT clients that do nothing (keep-alive 10 minutes). Source addresses spread over 127.0.0.0/8 so
 * tens of thousands of connections never exhaust one address's ephemeral ports.
 */
final class IdleMqttConnections implements AutoCloseable {
    private final List<Socket> sockets = new ArrayList<>();
    private int connected;

    private IdleMqttConnections() {
    }

    /** Opens {@code count} connections, each CONNECTed and CONNACKed with return code 0 (counted). */
    static IdleMqttConnections open(final int port, final int count) throws IOException {
        final IdleMqttConnections idle = new IdleMqttConnections();
        for (int i = 0; i < count; i++) {
            final Socket s = new Socket();
            idle.sockets.add(s);
            s.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, (byte) (i / 250 % 250),
                    (byte) (1 + i % 250)}), 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(MqttBytes.connect("idle-" + i, 600));
            final byte[] connack = MqttBytes.read(s.getInputStream());
            if (connack[0] == 0x20 && connack.length == 3 && connack[2] == 0) {
                idle.connected++;
            }
        }
        return idle;
    }

    int connected() {
        return connected;
    }

    @Override
    public void close() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing a connection the test no longer needs
            }
        }
    }
}
