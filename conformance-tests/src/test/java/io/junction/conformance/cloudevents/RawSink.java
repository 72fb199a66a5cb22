package io.junction.conformance.cloudevents;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A keep-alive HTTP/1.1 sink on plain sockets that counts the connections it accepts. With {@code dropSecond} it
 * closes a connection, unanswered, when the connection's second request arrives: a sink that dropped an idle
 * keep-alive connection just as the broker reused it.
 */
final class RawSink implements AutoCloseable {
    private static final byte[] OK = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger dropped = new AtomicInteger();
    /** The ce-id of every request answered 200. */
    final Set<String> answered = ConcurrentHashMap.newKeySet();
    private final ServerSocket server;
    private final boolean dropSecond;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    RawSink(final boolean dropSecond) {
        this.dropSecond = dropSecond;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        threads.execute(this::acceptLoop);
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/sink";
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                final Socket s = server.accept();
                connections.incrementAndGet();
                threads.execute(() -> serve(s));
            } catch (final IOException e) {
                return; // closed
            }
        }
    }

    private void serve(final Socket socket) {
        try (socket) {
            final InputStream in = new BufferedInputStream(socket.getInputStream());
            final OutputStream out = socket.getOutputStream();
            for (int n = 1; ; n++) {
                final Map<String, String> head = readHead(in);
                if (head == null) {
                    return;
                }
                in.readNBytes(Integer.parseInt(head.getOrDefault("content-length", "0").trim()));
                if (dropSecond && n == 2) {
                    dropped.incrementAndGet();
                    return;
                }
                answered.add(String.valueOf(head.get("ce-id")));
                out.write(OK);
                out.flush();
            }
        } catch (final IOException e) {
            // the broker closed the connection
        }
    }

    /** The request line and headers (names lower-cased), or null at the end of the stream. */
    private static Map<String, String> readHead(final InputStream in) throws IOException {
        final Map<String, String> head = new HashMap<>();
        boolean first = true;
        while (true) {
            final String line = readLine(in);
            if (line == null) {
                return null;
            }
            if (line.isEmpty()) {
                return head;
            }
            if (first) {
                first = false;
                continue;
            }
            final int colon = line.indexOf(':');
            if (colon > 0) {
                head.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
        }
    }

    private static String readLine(final InputStream in) throws IOException {
        final ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) >= 0; ) {
            if (b == '\n') {
                final byte[] bytes = line.toByteArray();
                final int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
    }
}
