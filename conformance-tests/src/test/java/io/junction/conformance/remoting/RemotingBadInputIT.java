package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Raw frames against the Remoting port: both header serializations, unknown codes, and broken input that must end
 * in an error response or a closed connection without harming other connections.
 */
@WithBroker(settings = {"remoting.max-frame-size=1m", "remoting.max-inflight-requests=2"})
class RemotingBadInputIT {
    /** The queue entry is built asynchronously: how long it may take to show, and how often to ask. */
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(20);
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private Socket connect() throws IOException {
        final Socket socket = new Socket("127.0.0.1", broker.port("remoting.port"));
        socket.setSoTimeout(5000);
        return socket;
    }

    private static byte[] jsonFrame(final String header, final byte[] body) {
        final byte[] h = header.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buf = ByteBuffer.allocate(8 + h.length + body.length);
        buf.putInt(4 + h.length + body.length).putInt(h.length).put(h).put(body);
        return buf.array();
    }

    /** Reads one response frame: returns [headerType, header bytes...] as (type, text-or-binary header). */
    private static Frame read(final Socket socket) throws IOException {
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final int length = in.readInt();
        final int headerInfo = in.readInt();
        final byte[] header = new byte[headerInfo & 0xFFFFFF];
        in.readFully(header);
        final byte[] body = new byte[length - 4 - header.length];
        in.readFully(body);
        return new Frame(headerInfo >>> 24, header, body);
    }

    record Frame(int type, byte[] header, byte[] body) {
        String json() {
            return new String(header, StandardCharsets.UTF_8);
        }
    }

    private static boolean closedByPeer(final Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    @Test
    void shouldAnswerAnUnknownCodeWithRequestCodeNotSupportedAndTheSameOpaque() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(jsonFrame(
                    "{\"code\":9999,\"flag\":0,\"language\":\"JAVA\",\"opaque\":77,\"version\":479}", new byte[0]));
            final Frame f = read(s);
            assertThat(f.type()).isZero();
            assertThat(f.json()).contains("\"code\":3").contains("\"opaque\":77").contains("\"flag\":1")
                    .contains("not supported");
        }
    }

    @Test
    void shouldAnswerABinaryHeaderRequestInBinary() throws Exception {
        final byte[] key = "topic".getBytes(StandardCharsets.UTF_8);
        final byte[] value = "TBW102".getBytes(StandardCharsets.UTF_8);
        final int extLength = 2 + key.length + 4 + value.length;
        final ByteBuffer header = ByteBuffer.allocate(21 + extLength);
        header.putShort((short) 105).put((byte) 0).putShort((short) 479).putInt(5).putInt(0).putInt(0)
                .putInt(extLength).putShort((short) key.length).put(key).putInt(value.length).put(value);
        final ByteBuffer frame = ByteBuffer.allocate(8 + header.capacity());
        frame.putInt(4 + header.capacity()).putInt((1 << 24) | header.capacity()).put(header.array());
        try (Socket s = connect()) {
            s.getOutputStream().write(frame.array());
            final Frame f = read(s);
            assertThat(f.type()).isEqualTo(1);
            final ByteBuffer h = ByteBuffer.wrap(f.header());
            assertThat(h.getShort()).isZero(); // SUCCESS
            h.get();
            h.getShort();
            assertThat(h.getInt()).isEqualTo(5); // opaque
            assertThat(h.getInt() & 1).isEqualTo(1); // response flag
            assertThat(new String(f.body(), StandardCharsets.UTF_8))
                    .contains("\"brokerAddrs\":{\"0\":\"127.0.0.1:" + broker.port("remoting.port") + "\"}")
                    .contains("\"perm\":7");
        }
    }

    @Test
    void shouldNotAnswerAOnewayRequest() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(jsonFrame(
                    "{\"code\":9999,\"flag\":2,\"language\":\"JAVA\",\"opaque\":1,\"version\":479}", new byte[0]));
            s.getOutputStream().write(jsonFrame(
                    "{\"code\":9998,\"flag\":0,\"language\":\"JAVA\",\"opaque\":2,\"version\":479}", new byte[0]));
            assertThat(read(s).json()).contains("\"opaque\":2");
        }
    }

    @Test
    void shouldAnswerAMalformedJsonHeaderWithAnError() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(jsonFrame("{\"code\":105, nonsense", new byte[0]));
            final Frame f = read(s);
            assertThat(f.json()).contains("\"code\":1").contains("malformed");
        }
    }

    @Test
    void shouldAnswerAMissingRequiredFieldWithAnError() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(jsonFrame(
                    "{\"code\":105,\"extFields\":{},\"flag\":0,\"opaque\":9,\"version\":479}", new byte[0]));
            assertThat(read(s).json()).contains("\"code\":1").contains("topic").contains("\"opaque\":9");
        }
    }

    @Test
    void shouldCloseOnOversizedNegativeOrTinyFramesAndKeepServingOthers() throws Exception {
        try (Socket healthy = connect()) {
            for (int length : new int[] {2 << 20, -5, 2, 0x7FFFFFFF}) {
                try (Socket bad = connect()) {
                    final DataOutputStream out = new DataOutputStream(bad.getOutputStream());
                    out.writeInt(length);
                    out.writeInt(0);
                    out.flush();
                    assertThat(closedByPeer(bad)).as("closed after length %d", length).isTrue();
                }
            }
            try (Socket bad = connect()) {
                final DataOutputStream out = new DataOutputStream(bad.getOutputStream());
                out.writeInt(100);
                out.writeInt((7 << 24) | 10); // unknown serialize type
                out.write(new byte[96]);
                out.flush();
                assertThat(closedByPeer(bad)).as("closed after unknown serialize type").isTrue();
            }
            try (Socket bad = connect()) {
                final DataOutputStream out = new DataOutputStream(bad.getOutputStream());
                out.writeInt(20);
                out.writeInt(500); // header longer than the frame
                out.write(new byte[16]);
                out.flush();
                assertThat(closedByPeer(bad)).as("closed after header longer than frame").isTrue();
            }
            healthy.getOutputStream().write(jsonFrame(
                    "{\"code\":106,\"flag\":0,\"language\":\"JAVA\",\"opaque\":3,\"version\":479}", new byte[0]));
            final Frame f = read(healthy);
            assertThat(f.json()).contains("\"code\":0").contains("\"opaque\":3");
            assertThat(new String(f.body(), StandardCharsets.UTF_8)).contains("JunctionCluster");
        }
    }

    @Test
    void shouldAnswerSystemBusyBeyondTheInFlightLimitOfAConnection() throws Exception {
        final String topic = Names.unique("busy");
        try (Socket s = connect()) {
            s.getOutputStream().write(jsonFrame("{\"code\":310,\"extFields\":{\"a\":\"pg\",\"b\":\"" + topic
                    + "\",\"c\":\"TBW102\",\"d\":\"4\",\"e\":\"0\",\"f\":\"0\",\"g\":\"0\",\"h\":\"0\","
                    + "\"j\":\"0\",\"k\":\"false\",\"m\":\"false\"},\"flag\":0,\"opaque\":1,\"version\":479}",
                    "x".getBytes(StandardCharsets.UTF_8)));
            final String sent = read(s).json();
            assertThat(sent).contains("\"code\":0").contains("\"queueOffset\":\"0\"");
            final java.util.regex.Matcher queue =
                    java.util.regex.Pattern.compile("\"queueId\":\"(\\d+)\"").matcher(sent);
            assertThat(queue.find()).as(sent).isTrue();
            // the queue entry is built asynchronously: wait until the queue shows the message
            await("queue " + queue.group(1) + " max offset 1").atMost(DEADLINE).pollInterval(POLL).until(() -> {
                s.getOutputStream().write(jsonFrame("{\"code\":30,\"extFields\":{\"topic\":\"" + topic
                        + "\",\"queueId\":\"" + queue.group(1) + "\"},\"flag\":0,\"opaque\":2,\"version\":479}",
                        new byte[0]));
                return read(s).json().contains("\"offset\":\"1\"");
            });
            for (int opaque = 10; opaque < 13; opaque++) {
                s.getOutputStream().write(jsonFrame("{\"code\":11,\"extFields\":{\"consumerGroup\":\"g\","
                        + "\"topic\":\"" + topic + "\",\"queueId\":\"" + queue.group(1)
                        + "\",\"queueOffset\":\"1\",\"maxMsgNums\":\"32\","
                        + "\"sysFlag\":\"2\",\"commitOffset\":\"0\",\"suspendTimeoutMillis\":\"3000\"},"
                        + "\"flag\":0,\"opaque\":" + opaque + ",\"version\":479}", new byte[0]));
            }
            final Frame busy = read(s); // the third pull, refused at once while two are parked
            assertThat(busy.json()).contains("\"code\":2").contains("\"opaque\":12");
            final Frame parked = read(s); // a parked pull ends with no new message
            assertThat(parked.json()).contains("\"code\":19").contains("\"nextBeginOffset\":\"1\"");
        }
    }

    /** One member of a SEND_BATCH_MESSAGE body: size, magic, body CRC, flag, body, properties. */
    private static byte[] batchMember(final String body, final String properties) {
        final byte[] b = body.getBytes(StandardCharsets.UTF_8);
        final byte[] p = properties.getBytes(StandardCharsets.UTF_8);
        final int size = 4 + 4 + 4 + 4 + 4 + b.length + 2 + p.length;
        return ByteBuffer.allocate(size).putInt(size).putInt(0).putInt(0).putInt(0).putInt(b.length).put(b)
                .putShort((short) p.length).put(p).array();
    }

    private static byte[] batchFrame(final String topic, final int opaque, final byte[]... members) {
        final java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        for (byte[] m : members) {
            body.writeBytes(m);
        }
        return jsonFrame("{\"code\":320,\"extFields\":{\"a\":\"pg\",\"b\":\"" + topic
                + "\",\"c\":\"TBW102\",\"d\":\"4\",\"e\":\"1\",\"f\":\"0\",\"g\":\"0\",\"h\":\"0\","
                + "\"j\":\"0\",\"k\":\"false\",\"m\":\"true\"},\"flag\":0,\"opaque\":" + opaque
                + ",\"version\":479}", body.toByteArray());
    }

    @Test
    void shouldStoreNothingOfABatchWithATruncatedOrADelayedMember() throws Exception {
        final String topic = Names.unique("batch");
        final String uniq = "UNIQ_KEY\u0001";
        try (Socket s = connect()) {
            final byte[] whole = batchMember("third", "");
            s.getOutputStream().write(batchFrame(topic, 1, batchMember("first", ""), batchMember("second", ""),
                    java.util.Arrays.copyOf(whole, whole.length - 3)));
            assertThat(read(s).json()).contains("\"opaque\":1").doesNotContain("\"code\":0")
                    .contains("batch");
            s.getOutputStream().write(batchFrame(topic, 2, batchMember("first", uniq + "A1\u0002"),
                    batchMember("later", uniq + "A2\u0002DELAY\u00013\u0002"),
                    batchMember("third", uniq + "A3\u0002")));
            assertThat(read(s).json()).contains("\"opaque\":2").contains("\"code\":13").contains("delayed");
            s.getOutputStream().write(batchFrame(topic, 3, batchMember("one", uniq + "B1\u0002"),
                    batchMember("two", uniq + "B2\u0002")));
            final String ok = read(s).json();
            assertThat(ok).contains("\"opaque\":3").contains("\"code\":0").contains("\"queueId\":\"1\"")
                    .as("no member of the refused batches took a queue offset").contains("\"queueOffset\":\"0\"");
            // The queue ends right after the accepted batch; no other queue got anything (GET_MAX_OFFSET).
            await("queue 1 max offset 2").atMost(DEADLINE).pollInterval(POLL).untilAsserted(() -> {
                s.getOutputStream().write(jsonFrame("{\"code\":30,\"extFields\":{\"topic\":\"" + topic
                        + "\",\"queueId\":\"1\"},\"flag\":0,\"opaque\":4,\"version\":479}", new byte[0]));
                assertThat(read(s).json()).contains("\"offset\":\"2\"");
            });
            for (int q : new int[] {0, 2, 3}) {
                s.getOutputStream().write(jsonFrame("{\"code\":30,\"extFields\":{\"topic\":\"" + topic
                        + "\",\"queueId\":\"" + q + "\"},\"flag\":0,\"opaque\":5,\"version\":479}", new byte[0]));
                assertThat(read(s).json()).contains("\"offset\":\"0\"");
            }
        }
    }
}
