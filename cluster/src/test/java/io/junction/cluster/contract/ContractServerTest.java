package io.junction.cluster.contract;

import static io.junction.cluster.contract.WireRoundTrip.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.filter.MessageFilter;
import io.junction.core.filter.TagFilter;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real store behind a {@link ContractServer}, called through {@link RemoteMessaging} over real sockets. */
class ContractServerTest {
    private static final int MAX_MESSAGE = 256 * 1024;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    /** A topic made only through raw admin frames (the one the other tests use is made before each). */
    private static final TopicConfig ADMIN_MADE = new TopicConfig("admin-made", 4, TopicType.NORMAL,
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
        store.topics().createIfAbsent(TopicConfig.of("orders", 1)).join();
        server = ContractServer.start("127.0.0.1", 0, () -> store, MAX_MESSAGE);
        clientLoops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        remote = new RemoteMessaging(clientLoops, server.address(), MAX_MESSAGE, CALL_TIMEOUT);
    }

    @AfterEach
    void stop() {
        remote.close();
        server.close();
        clientLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        store.close();
    }

    /**
     * A pop cancelled at any moment (a proxy's client left): what it took is the group's again at once, also when the
     * server's answer was already on the way. Each round sends one message, cancels a pop of it at once and pops again
     * with a short wait, far below the invisible time.
     */
    @Test
    void whatACancelledPopTookComesBackAtOnce() throws Exception {
        store.groups().createOrUpdate(new GroupConfig("cancelling", 16, false, false, Map.of())).join();
        for (int i = 0; i < 200; i++) {
            final String body = "c" + i;
            get(remote.send(message(body, null)));
            final CompletableFuture<PopResult> cancelled = remote.pop(new PopRequest("cancelling", "orders", null, 1,
                    120_000, 1_000));
            if (i % 2 == 1) {
                Thread.sleep(0, 200_000); // odd rounds cancel a moment later
            }
            if (!cancelled.cancel(false)) {
                // It completed first: its caller has the message and gives it back, as a front-end does.
                for (PoppedMessage m : cancelled.join().messages()) {
                    get(remote.giveBack("cancelling", m.receiptHandle()));
                }
            }
            final PopResult again = get(remote.pop(new PopRequest("cancelling", "orders", null, 1, 120_000, 5_000)));
            assertThat(again.messages()).as("round %d: the message the cancelled pop may have taken", i).hasSize(1);
            final PoppedMessage m = again.messages().get(0);
            assertThat(TestStores.body(m.message())).isEqualTo(body);
            get(remote.ack("cancelling", m.receiptHandle()));
        }
        // A dead-lettering through the contract is answered as done (its answer has no body, like a give-back's).
        get(remote.send(message("last", null)));
        final PoppedMessage last = get(remote.pop(new PopRequest("cancelling", "orders", null, 1, 120_000, 5_000)))
                .messages().get(0);
        get(remote.deadLetter("cancelling", last.receiptHandle()));
        assertThat(get(remote.pop(new PopRequest("cancelling", "orders", null, 1, 120_000, 0))).messages()).isEmpty();
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    private static Message message(final String body, final String tag) {
        return Message.builder("orders").queueId(0).body(body.getBytes(StandardCharsets.UTF_8)).tag(tag)
                .property("color", "blue").build();
    }

    @Test
    void shouldSendPullPopAndAckWithExactBytesAndProperties() throws Exception {
        final SendResult first = get(remote.send(message("one", "a")));
        final List<SendResult> batch = get(remote.sendBatch(List.of(message("two", "b"), message("three", "a"))));
        assertThat(first.queueOffset()).isZero();
        assertThat(batch).extracting(SendResult::queueOffset).containsExactly(1L, 2L);
        assertThat(get(store.lookup(first.commitLogOffset())).orElseThrow().bodyBytes())
                .isEqualTo("one".getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(10)).until(() -> store.maxOffset("orders", 0) == 3);
        final PullResult pulled = get(remote.pull(new PullRequest("g", "orders", 0, 0, 10, TagFilter.parse("a"), 0)));
        assertThat(pulled.status()).isEqualTo(PullStatus.FOUND);
        assertThat(pulled.messages()).extracting(m -> new String(m.bodyBytes(), StandardCharsets.UTF_8))
                .containsExactly("one", "three");
        final StoredMessage m = pulled.messages().get(0);
        assertThat(m.uniqueId()).isEqualTo(first.uniqueId());
        assertThat(m.property("color")).isEqualTo("blue");
        assertThat(m.tag()).isEqualTo("a");
        assertThat(pulled.nextOffset()).isEqualTo(3);

        final PopResult popped = get(remote.pop(new PopRequest("g", "orders", MessageFilter.ALL, 10, 60_000, 0)));
        assertThat(popped.messages()).extracting(p -> new String(p.message().bodyBytes(), StandardCharsets.UTF_8))
                .containsExactly("one", "two", "three");
        final PoppedMessage two = popped.messages().get(1);
        assertThat(two.message().properties()).containsEntry("color", "blue").containsEntry("TAGS", "b");
        get(remote.ack("g", popped.messages().get(0).receiptHandle()));
        get(remote.ackReceipts("g", List.of(two.receipt(), popped.messages().get(2).receipt())));
        // Acked twice: the store refuses a handle it no longer knows, and the error crosses as itself.
        assertThatThrownBy(() -> get(remote.ack("g", "not-a-receipt")))
                .hasCauseInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));

        remote.commitOffset("g2", "orders", 0, 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.queryOffset("g2", "orders", 0) == 2);
        assertThat(get(remote.queryOffsetAsync("g2", "orders", 0))).isEqualTo(2);
        assertThat(get(remote.searchOffset("orders", 0, 0))).isZero();
        assertThat(get(remote.earliestStoreTime("orders", 0))).isEqualTo(m.storeTimestamp());
    }

    @Test
    void shouldWakeARemoteLongPollWhenAMessageArrives() throws Exception {
        final CompletableFuture<PopResult> waiting =
                remote.pop(new PopRequest("g", "orders", MessageFilter.ALL, 4, 60_000, 15_000));
        // The pop parks on the server (nothing is there yet) before the send below.
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        get(store.send(message("late", "a")));
        final PopResult result = get(waiting);
        assertThat(result.messages()).extracting(p -> new String(p.message().bodyBytes(), StandardCharsets.UTF_8))
                .containsExactly("late");
    }

    @Test
    void shouldDropTheServersWaitWhenARemoteLongPollIsCancelled() throws Exception {
        final CompletableFuture<PopResult> waiting =
                remote.pop(new PopRequest("g", "orders", MessageFilter.ALL, 4, 60_000, 30_000));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        waiting.cancel(true);
        // The message sent next is not taken by the cancelled pop: a local pop of the same group gets it.
        get(remote.send(message("after-cancel", "a")));
        final PopResult local = get(store.pop(new PopRequest("g", "orders", MessageFilter.ALL, 4, 60_000, 10_000)));
        assertThat(local.messages()).extracting(p -> new String(p.message().bodyBytes(), StandardCharsets.UTF_8))
                .containsExactly("after-cancel");
    }

    @Test
    void shouldCloseOnlyTheConnectionOfAnOversizeFrameOrAnUnknownOperation() throws Exception {
        final ByteArrayOutputStream big = new ByteArrayOutputStream();
        final DataOutputStream bigFrame = new DataOutputStream(big);
        bigFrame.writeInt(ContractFrame.maxFrameLength(MAX_MESSAGE) + 1);
        bigFrame.writeLong(1);
        bigFrame.writeByte(Operation.SEND.code);
        assertClosedByServer(big.toByteArray());

        // (A body that does not decode is answered instead: ContractServerMalformedBodyTest.)
        final ByteArrayOutputStream unknown = new ByteArrayOutputStream();
        final DataOutputStream unknownFrame = new DataOutputStream(unknown);
        unknownFrame.writeInt(ContractFrame.HEADER_AFTER_LENGTH);
        unknownFrame.writeLong(1);
        unknownFrame.writeByte(99);
        assertClosedByServer(unknown.toByteArray());
        // Another client is served as before.
        final SendResult ok = get(remote.send(message("still-served", "a")));
        assertThat(get(store.lookup(ok.commitLogOffset())).orElseThrow().bodyBytes())
                .isEqualTo("still-served".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldStopReadingAConnectionOverItsInFlightBoundUntilAnswersGoOut() throws Exception {
        try (ContractServer small = ContractServer.start("127.0.0.1", 0, () -> store, MAX_MESSAGE, 2);
             RemoteMessaging client = new RemoteMessaging(clientLoops, small.address(), MAX_MESSAGE, CALL_TIMEOUT)) {
            final List<CompletableFuture<PopResult>> polls = List.of(
                    client.pop(new PopRequest("g", "orders", MessageFilter.ALL, 1, 60_000, 30_000)),
                    client.pop(new PopRequest("g", "orders", MessageFilter.ALL, 1, 60_000, 30_000)));
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                    .until(() -> polls.stream().noneMatch(CompletableFuture::isDone));
            // Two requests wait: the server reads no more of this connection, so this send waits as well.
            final CompletableFuture<SendResult> queued = client.send(message("queued", "a"));
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !queued.isDone());
            // A message sent another way answers one poll; the connection is read again and the send is served.
            get(store.send(message("wakes", "a")));
            final SendResult sent = get(queued);
            assertThat(get(store.lookup(sent.commitLogOffset())).orElseThrow().bodyBytes())
                    .isEqualTo("queued".getBytes(StandardCharsets.UTF_8));
            final List<String> popped = new ArrayList<>();
            for (CompletableFuture<PopResult> poll : polls) {
                get(poll).messages().forEach(p -> popped.add(new String(p.message().bodyBytes(),
                        StandardCharsets.UTF_8)));
            }
            assertThat(popped).contains("wakes");
        }
    }

    @Test
    void shouldNameTheAddressAndTheReasonWhenItsPortIsTaken() throws Exception {
        final int taken = server.address().getPort();
        // The checked BindException must not escape as is: the broker's start line would read only the OS reason.
        assertThatThrownBy(() -> ContractServer.start("127.0.0.1", taken, () -> store, MAX_MESSAGE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot bind the contract server on 127.0.0.1:" + taken)
                .hasMessageContaining("Address already in use");
        // The running server still answers.
        final SendResult ok = get(remote.send(message("after-a-refused-bind", "a")));
        assertThat(ok.queueOffset()).isGreaterThanOrEqualTo(0);
    }

    /** Sends bytes on a new connection and expects the server to close it (end of stream, or a reset). */
    private void assertClosedByServer(final byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.address().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            int read;
            try {
                read = socket.getInputStream().read();
            } catch (SocketException reset) {
                read = -1;
            }
            assertThat(read).as("closed by the server").isEqualTo(-1);
        }
    }

    @Test
    void shouldAnswerAStoreRefusalWithAnErrorFrameAndKeepTheConnection() throws Exception {
        // A filter kind no module on the server defines: refused as a bad filter, not widened, not a closed connection.
        final MessageFilter unknownKind =
                HandMadeFilters.extension("nobody-defines-this", List.of(), properties -> false);
        assertThatThrownBy(() -> get(remote.pop(new PopRequest("g", "orders", unknownKind, 4, 60_000, 0))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_FILTER));
        final Message huge = Message.builder("orders").body(new byte[MAX_MESSAGE + 1]).build();
        assertThatThrownBy(() -> get(remote.send(huge)))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.MESSAGE_TOO_LARGE));
        final SendResult ok = get(remote.send(message("after-errors", "a")));
        assertThat(ok.queueOffset()).isZero();
    }

    @Test
    void shouldRefuseToWidenAFilterItCannotDescribe() {
        final MessageFilter local = HandMadeFilters.frontEndLocal(properties -> false);
        assertThatThrownBy(() -> get(remote.pop(new PopRequest("g", "orders", local, 4, 60_000, 0))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.UNAVAILABLE));
    }

    @Test
    void shouldFailPendingCallsWithUnavailableWhenTheServerStops() throws Exception {
        final CompletableFuture<PopResult> waiting =
                remote.pop(new PopRequest("g", "orders", MessageFilter.ALL, 4, 60_000, 60_000));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        server.close();
        assertThatThrownBy(() -> get(waiting))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.UNAVAILABLE));
        // The next call tries to reconnect and fails the same way, at once rather than hanging.
        assertThatThrownBy(() -> get(remote.send(message("nobody", "a"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.UNAVAILABLE));
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
        final byte[] topic = written(b -> AdminCodec.writeTopic(b, ADMIN_MADE));
        final byte[] group = written(b -> AdminCodec.writeGroup(b, new GroupConfig("g-wrong-kind", 3, false, false,
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
            assertRefused(out, in, 3, Operation.LOCK_QUEUES, written(b -> {
                WireFormat.writeString(b, "g");
                WireFormat.writeString(b, "client");
                WireFormat.writeString(b, "admin-made");
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
            assertRefused(out, in, 10, Operation.SEND, written(b -> b.writeInt(1 << 30)));

            assertThat(store.topics().get(ADMIN_MADE.name())).as("topic after refused creates").isEmpty();
            assertThat(store.groups().get("g-wrong-kind")).as("group after a refused create").isEmpty();

            // The same connection serves a good request after all of them.
            request(out, 11, Operation.TOPIC_CREATE_OR_UPDATE, topic);
            final Answer created = answer(in);
            assertThat(created.id()).isEqualTo(11);
            assertThat(created.kind()).isEqualTo(ContractFrame.RESULT);
            assertThat(AdminCodec.readTopic(Unpooled.wrappedBuffer(created.body())).name()).isEqualTo("admin-made");
            request(out, 12, Operation.LOCK_QUEUES, written(b -> {
                WireFormat.writeString(b, "g");
                WireFormat.writeString(b, "client");
                WireFormat.writeString(b, "admin-made");
                AdminCodec.writeQueueIds(b, Set.of(0, 1));
            }));
            final Answer locked = answer(in);
            assertThat(locked.kind()).isEqualTo(ContractFrame.RESULT);
            assertThat(AdminCodec.readQueueIds(Unpooled.wrappedBuffer(locked.body()))).containsExactlyInAnyOrder(0, 1);
        }
        assertThat(store.topics().get("admin-made")).map(TopicConfig::queueCount).contains(4);
        // And another connection is served as well.
        final SendResult sent = get(remote.send(message("after", "a")));
        assertThat(get(store.lookup(sent.commitLogOffset())).orElseThrow().bodyBytes())
                .isEqualTo("after".getBytes(StandardCharsets.UTF_8));
    }
}
