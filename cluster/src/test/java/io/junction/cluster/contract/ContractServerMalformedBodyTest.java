package io.junction.cluster.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request bodies that do not decode, sent over a real socket to a {@link ContractServer} in front of a real store:
 * each is answered with an ILLEGAL_ARGUMENT error naming the operation, changes nothing in the store, and the same
 * connection and the others go on being served.
 */
class ContractServerMalformedBodyTest {
    private static final int MAX_MESSAGE = 256 * 1024;
    private static final TopicConfig TOPIC = new TopicConfig("orders", 4, TopicType.NORMAL,
            TopicConfig.PERM_READ | TopicConfig.PERM_WRITE, Map.of());

    @TempDir
    Path dir;

    private MessageStore store;
    private ContractServer server;
    private EventLoopGroup clientLoops;
    private RemoteMessaging remote;

    /** One answer frame: the request id it answers, RESULT or ERROR, and its body. */
    private record Answer(long id, byte kind, byte[] body) {
        StoreError error() {
            assertThat(kind).as("kind of the answer to request %d", id).isEqualTo(ContractFrame.ERROR);
            final ByteBuf in = Unpooled.wrappedBuffer(body);
            return ContractCodec.readErrorKind(in);
        }

        String errorText() {
            final ByteBuf in = Unpooled.wrappedBuffer(body);
            WireFormat.readString(in);
            return WireFormat.readString(in);
        }
    }

    @BeforeEach
    void start() {
        store = MessageStore.open(TestStores.small(dir).build());
        server = ContractServer.start("127.0.0.1", 0, () -> store, MAX_MESSAGE);
        clientLoops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        remote = new RemoteMessaging(clientLoops, server.address(), MAX_MESSAGE, Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        remote.close();
        server.close();
        clientLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        store.close();
    }

    private static byte[] body(final Consumer<ByteBuf> write) {
        final ByteBuf buf = Unpooled.buffer();
        try {
            write.accept(buf);
            final byte[] out = new byte[buf.readableBytes()];
            buf.readBytes(out);
            return out;
        } finally {
            buf.release();
        }
    }

    private static void request(final DataOutputStream out, final long id, final Operation op, final byte[] body)
            throws IOException {
        out.writeInt(ContractFrame.HEADER_AFTER_LENGTH + body.length);
        out.writeLong(id);
        out.writeByte(op.code);
        out.write(body);
        out.flush();
    }

    private static Answer answer(final DataInputStream in) throws IOException {
        final int length = in.readInt();
        final long id = in.readLong();
        final byte kind = in.readByte();
        final byte[] body = new byte[length - ContractFrame.HEADER_AFTER_LENGTH];
        in.readFully(body);
        return new Answer(id, kind, body);
    }

    /** Sends a request whose body does not decode and expects the bad-request answer for it. */
    private static void assertRefused(final DataOutputStream out, final DataInputStream in, final long id,
                                      final Operation op, final byte[] body) throws IOException {
        request(out, id, op, body);
        final Answer a = answer(in);
        assertThat(a.id()).isEqualTo(id);
        assertThat(a.error()).as("error for %s body %s", op, Arrays.toString(body))
                .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
        assertThat(a.errorText()).startsWith("malformed " + op + " body");
    }

    @Test
    void shouldAnswerMalformedAdminBodiesWithAnErrorChangeNothingAndKeepServing() throws Exception {
        final byte[] topic = body(b -> AdminCodec.writeTopic(b, TOPIC));
        final byte[] group = body(b -> AdminCodec.writeGroup(b, new GroupConfig("g-wrong-kind", 3, false, false,
                Map.of())));
        final byte[] garbage = new byte[48];
        new Random(7).nextBytes(garbage);
        try (Socket socket = new Socket("127.0.0.1", server.address().getPort())) {
            socket.setSoTimeout(10_000);
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            final DataInputStream in = new DataInputStream(socket.getInputStream());

            // Truncated: the topic entry without its last bytes.
            assertRefused(out, in, 1, Operation.TOPIC_CREATE_OR_UPDATE, Arrays.copyOf(topic, topic.length - 3));
            // Oversized: a whole topic entry and bytes after it. Refused before the store is called.
            final byte[] longer = Arrays.copyOf(topic, topic.length + 5);
            assertRefused(out, in, 2, Operation.TOPIC_CREATE_IF_ABSENT, longer);
            // A count beyond the body: a million queue ids in four bytes.
            assertRefused(out, in, 3, Operation.LOCK_QUEUES, body(b -> {
                WireFormat.writeString(b, "g");
                WireFormat.writeString(b, "client");
                WireFormat.writeString(b, "orders");
                b.writeInt(1_000_000);
            }));
            // Wrong kind: a topic entry where a group belongs, and a group's where a topic belongs.
            assertRefused(out, in, 4, Operation.GROUP_CREATE_OR_UPDATE, topic);
            assertRefused(out, in, 5, Operation.TOPIC_CREATE_OR_UPDATE, group);
            // Garbage, and nothing at all, for operations that carry a body.
            assertRefused(out, in, 6, Operation.BROWSE, garbage);
            assertRefused(out, in, 7, Operation.HEARTBEAT, garbage);
            assertRefused(out, in, 8, Operation.QUERY_BY_KEY, new byte[0]);
            assertRefused(out, in, 9, Operation.RESET_OFFSETS, new byte[] {0, 0, 0, 1});
            // A message operation's body that lies about a length is refused the same way.
            assertRefused(out, in, 10, Operation.SEND, body(b -> b.writeInt(1 << 30)));

            assertThat(store.topics().get(TOPIC.name())).as("topic after refused creates").isEmpty();
            assertThat(store.groups().get("g-wrong-kind")).as("group after a refused create").isEmpty();

            // The same connection serves a good request after all of them.
            request(out, 11, Operation.TOPIC_CREATE_OR_UPDATE, topic);
            final Answer created = answer(in);
            assertThat(created.id()).isEqualTo(11);
            assertThat(created.kind()).isEqualTo(ContractFrame.RESULT);
            assertThat(AdminCodec.readTopic(Unpooled.wrappedBuffer(created.body())).name()).isEqualTo("orders");
            request(out, 12, Operation.LOCK_QUEUES, body(b -> {
                WireFormat.writeString(b, "g");
                WireFormat.writeString(b, "client");
                WireFormat.writeString(b, "orders");
                AdminCodec.writeQueueIds(b, Set.of(0, 1));
            }));
            final Answer locked = answer(in);
            assertThat(locked.kind()).isEqualTo(ContractFrame.RESULT);
            assertThat(AdminCodec.readQueueIds(Unpooled.wrappedBuffer(locked.body()))).containsExactlyInAnyOrder(0, 1);
        }
        assertThat(store.topics().get("orders")).map(TopicConfig::queueCount).contains(4);
        // And another connection is served as well.
        final SendResult sent = remote.send(Message.builder("orders").queueId(0)
                .body("after".getBytes(StandardCharsets.UTF_8)).build()).get(20, TimeUnit.SECONDS);
        assertThat(store.lookup(sent.commitLogOffset()).get(20, TimeUnit.SECONDS).orElseThrow().bodyBytes())
                .isEqualTo("after".getBytes(StandardCharsets.UTF_8));
    }
}
