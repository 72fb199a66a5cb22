package io.junction.cluster.contract;

import static io.junction.cluster.contract.WireRoundTrip.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PopStart;
import io.junction.core.PoppedMessage;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.RecallHandle;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.Filters;
import io.junction.core.filter.MessageFilter;
import io.junction.core.filter.TagFilter;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContractCodecTest {
    @TempDir
    Path dir;

    private static Message message(final int sysFlag) throws Exception {
        final Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.TAGS, "tagA");
        props.put(MessageProperties.KEYS, "k1 k2");
        props.put("color", "blue");
        props.put("ünïcode", "välue ✓");
        return new Message("orders", 3, new byte[] {0, 1, 2, (byte) 0xFF}, 7, props, sysFlag, 1234567L,
                new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 0, 9}), 4321), 2);
    }

    @Test
    void shouldRoundTripAMessageWithEveryField() throws Exception {
        final Message m = message(0x4);
        final Message back = roundTrip(m, ContractCodec::writeMessage, ContractCodec::readMessage);
        assertThat(back.topic()).isEqualTo("orders");
        assertThat(back.queueId()).isEqualTo(3);
        assertThat(back.body()).containsExactly(0, 1, 2, 0xFF);
        assertThat(back.flag()).isEqualTo(7);
        assertThat(back.properties()).containsExactlyEntriesOf(m.properties());
        assertThat(back.sysFlag()).isEqualTo(0x4);
        assertThat(back.bornTimestamp()).isEqualTo(1234567L);
        assertThat(back.bornHost()).isEqualTo(m.bornHost());
        assertThat(back.reconsumeTimes()).isEqualTo(2);

        final Message unresolved = Message.builder("t").bornHost(InetSocketAddress.createUnresolved("host-a", 9))
                .build();
        final Message back2 = roundTrip(unresolved, ContractCodec::writeMessage, ContractCodec::readMessage);
        assertThat(back2.bornHost().isUnresolved()).isTrue();
        assertThat(back2.bornHost().getHostString()).isEqualTo("host-a");
        assertThat(back2.bornHost().getPort()).isEqualTo(9);

        final List<Message> batch = roundTrip(List.of(m, unresolved), ContractCodec::writeMessages,
                ContractCodec::readMessages);
        assertThat(batch).extracting(Message::topic).containsExactly("orders", "t");
    }

    @Test
    void shouldRoundTripStoredMessagesPullAndPopResults() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            final SendResult sent = store.send(message(0)).get(10, TimeUnit.SECONDS);
            final SendResult sentBack = roundTrip(sent, ContractCodec::writeSendResult,
                    ContractCodec::readSendResult);
            assertThat(sentBack).isEqualTo(sent);
            assertThat(roundTrip(List.of(sent, sent), ContractCodec::writeSendResults,
                    ContractCodec::readSendResults)).containsExactly(sent, sent);

            TestStores.awaitIndexed(store);
            final PullResult pulled = store.pull(new PullRequest("g", "orders", 3, 0, 10, MessageFilter.ALL, 0))
                    .get(10, TimeUnit.SECONDS);
            assertThat(pulled.messages()).hasSize(1);
            final PullResult back = roundTrip(pulled, ContractCodec::writePullResult, ContractCodec::readPullResult);
            assertThat(back.status()).isEqualTo(PullStatus.FOUND);
            assertThat(back.nextOffset()).isEqualTo(pulled.nextOffset());
            assertThat(back.minOffset()).isEqualTo(pulled.minOffset());
            assertThat(back.maxOffset()).isEqualTo(pulled.maxOffset());
            assertSameStored(back.messages().get(0), pulled.messages().get(0));

            final PoppedMessage popped = new PoppedMessage(pulled.messages().get(0), "orders",
                    new SealedReceipt("sealed-text"), 4);
            final PopResult pop = roundTrip(new PopResult(List.of(popped)), ContractCodec::writePopResult,
                    ContractCodec::readPopResult);
            assertThat(pop.messages()).hasSize(1);
            assertSameStored(pop.messages().get(0).message(), popped.message());
            assertThat(pop.messages().get(0).topic()).isEqualTo("orders");
            assertThat(pop.messages().get(0).receiptHandle()).isEqualTo("sealed-text");
            assertThat(pop.messages().get(0).reconsumeTimes()).isEqualTo(4);
        }
    }

    private static void assertSameStored(final StoredMessage back, final StoredMessage m) {
        assertThat(back.topic()).isEqualTo(m.topic());
        assertThat(back.queueId()).isEqualTo(m.queueId());
        assertThat(back.queueOffset()).isEqualTo(m.queueOffset());
        assertThat(back.commitLogOffset()).isEqualTo(m.commitLogOffset());
        assertThat(back.size()).isEqualTo(m.size());
        assertThat(back.flag()).isEqualTo(m.flag());
        assertThat(back.sysFlag()).isEqualTo(m.sysFlag());
        assertThat(back.bornTimestamp()).isEqualTo(m.bornTimestamp());
        assertThat(back.bornHost()).isEqualTo(m.bornHost());
        assertThat(back.storeTimestamp()).isEqualTo(m.storeTimestamp());
        assertThat(back.storeHost()).isEqualTo(m.storeHost());
        assertThat(back.reconsumeTimes()).isEqualTo(m.reconsumeTimes());
        assertThat(back.preparedTransactionOffset()).isEqualTo(m.preparedTransactionOffset());
        assertThat(back.properties()).containsExactlyEntriesOf(m.properties());
        assertThat(back.bodyBytes()).containsExactly(m.bodyBytes());
        assertThat(back.record()).isEqualTo(m.record());
        assertThat(back.offsetMessageId()).isEqualTo(m.offsetMessageId());
    }

    @Test
    void shouldSendABodyThatIsNotInItsRecordSeparately() {
        final StoredMessage odd = new StoredMessage("t", 0, 1, 2, 3, 0, 0, 4, null, 5, null, 0, -1, Map.of("a", "b"),
                ByteBuffer.wrap("body".getBytes(StandardCharsets.UTF_8)), ByteBuffer.allocate(0));
        final StoredMessage back = roundTrip(odd, ContractCodec::writeStored, ContractCodec::readStored);
        assertThat(new String(back.bodyBytes(), StandardCharsets.UTF_8)).isEqualTo("body");
        assertThat(back.record().remaining()).isZero();
        assertThat(back.bornHost()).isNull();
    }

    @Test
    void shouldRoundTripATransactionCheckFrame() {
        final StoredMessage half = new StoredMessage("RMQ_SYS_TRANS_HALF_TOPIC", 0, 1, 2, 3, 0, 0, 4, null, 5, null, 0,
                -1, Map.of("REAL_TOPIC", "orders", "PGROUP", "pg"),
                ByteBuffer.wrap("half".getBytes(StandardCharsets.UTF_8)), ByteBuffer.allocate(0));
        final ByteBuf buf = Unpooled.buffer();
        try {
            TransactionCheckFrame.write(buf, "pg", half, 3);
            assertThat(buf.readInt()).as("length field").isEqualTo(buf.readableBytes());
            buf.readLong();
            assertThat(buf.readByte()).isEqualTo(TransactionCheckFrame.KIND);
            assertThat(Operation.of(TransactionCheckFrame.KIND)).as("no operation shares the kind").isNull();
            final TransactionCheckFrame.Check back = TransactionCheckFrame.read(buf);
            assertThat(buf.isReadable()).as("every byte read").isFalse();
            assertThat(back.producerGroup()).isEqualTo("pg");
            assertThat(back.checkTimes()).isEqualTo(3);
            assertThat(back.halfMessage().commitLogOffset()).isEqualTo(half.commitLogOffset());
            assertThat(back.halfMessage().properties()).isEqualTo(half.properties());
            assertThat(new String(back.halfMessage().bodyBytes(), StandardCharsets.UTF_8)).isEqualTo("half");
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldRoundTripRequestsAndEnds() {
        final MessageFilter tag = TagFilter.parse("a || b");
        final PullRequest pull = new PullRequest("g", "t", 2, 17, 32, tag, 1500);
        final PullRequest compiled = decodePull(pull).compile();
        assertThat(compiled.group()).isEqualTo("g");
        assertThat(compiled.topic()).isEqualTo("t");
        assertThat(compiled.queueId()).isEqualTo(2);
        assertThat(compiled.offset()).isEqualTo(17);
        assertThat(compiled.maxMessages()).isEqualTo(32);
        assertThat(compiled.maxWaitMillis()).isEqualTo(1500);
        assertThat(compiled.filter().spec()).isEqualTo(tag.spec());

        final PopRequest pop = new PopRequest("g", "t", tag, 16, 30_000, 2000, PopStart.LATEST).holding(Set.of(1, 4));
        final ByteBuf buf = Unpooled.buffer();
        ContractCodec.writePopRequest(buf, pop);
        final PopRequest popBack = ContractCodec.readPopRequest(buf).compile();
        buf.release();
        assertThat(popBack.group()).isEqualTo("g");
        assertThat(popBack.topic()).isEqualTo("t");
        assertThat(popBack.maxMessages()).isEqualTo(16);
        assertThat(popBack.invisibleMillis()).isEqualTo(30_000);
        assertThat(popBack.maxWaitMillis()).isEqualTo(2000);
        assertThat(popBack.start()).isEqualTo(PopStart.LATEST);
        assertThat(popBack.heldQueues()).containsExactlyInAnyOrder(1, 4);
        assertThat(popBack.filter().spec()).isEqualTo(tag.spec());

        final TransactionEnd end = new TransactionEnd("pg", 99, "id", "tx", TransactionResolution.ROLLBACK, true);
        assertThat(roundTrip(end, ContractCodec::writeTransactionEnd, ContractCodec::readTransactionEnd))
                .isEqualTo(end);
        final TransactionEnd byId = TransactionEnd.byId("m", "t", TransactionResolution.COMMIT);
        assertThat(roundTrip(byId, ContractCodec::writeTransactionEnd, ContractCodec::readTransactionEnd))
                .isEqualTo(byId);
        final RecallHandle handle = new RecallHandle("t", "uid", 12345, 678);
        assertThat(roundTrip(handle, ContractCodec::writeRecallHandle, ContractCodec::readRecallHandle))
                .isEqualTo(handle);

        final ByteBuf err = Unpooled.buffer();
        ContractCodec.writeError(err, StoreError.GROUP_NOT_FOUND, "no group g");
        assertThat(ContractCodec.readErrorKind(err)).isEqualTo(StoreError.GROUP_NOT_FOUND);
        assertThat(WireFormat.readString(err)).isEqualTo("no group g");
        err.release();
    }

    private static ContractCodec.PullRequestSpec decodePull(final PullRequest pull) {
        final ByteBuf buf = Unpooled.buffer();
        try {
            ContractCodec.writePullRequest(buf, pull);
            return ContractCodec.readPullRequest(buf);
        } finally {
            buf.release();
        }
    }

    private static final Function<String, String> CE_NAMES = a -> switch (a) {
        case "type" -> "CE_type";
        case "source" -> "CE_source";
        case "subject" -> "CE_subject";
        default -> null;
    };

    /** Property maps the filters below accept or reject in different combinations. */
    private static final List<Map<String, String>> SAMPLES = List.of(
            Map.of(),
            Map.of(MessageProperties.TAGS, "a"),
            Map.of(MessageProperties.TAGS, "b", "color", "red", "size", "3"),
            Map.of(MessageProperties.TAGS, "c", "color", "blue", "size", "12"),
            Map.of("CE_type", "order.created", "CE_source", "/shop/eu", "CE_subject", "o-1"),
            Map.of("CE_type", "order.cancelled", "CE_source", "/shop/us"),
            Map.of("CE_type", "user.created", "CE_source", "/crm/eu", "color", "red"),
            Map.of("JMSType", "x", "color", "red", "size", "7"));

    @Test
    void shouldDescribeEveryFilterKindSoThatItMatchesTheSameMessages() {
        final List<MessageFilter> filters = List.of(
                MessageFilter.ALL,
                TagFilter.parse("a || b"),
                TagFilter.parse("||"),
                Filters.compile("SQL92", "color = 'red' AND size > 2"),
                Filters.compile("SQL92", "color IN ('blue') OR size BETWEEN 10 AND 20"),
                Filters.jmsSelector("color LIKE 'r%' AND size < 10"),
                Filters.cloudEvents(Map.of("exact", Map.of("type", "order.created")), CE_NAMES),
                Filters.cloudEvents(Map.of("prefix", Map.of("type", "order.")), CE_NAMES),
                Filters.cloudEvents(Map.of("suffix", Map.of("source", "/eu")), CE_NAMES),
                Filters.cloudEvents(List.of(Map.of("prefix", Map.of("type", "order.")),
                        Map.of("not", Map.of("suffix", Map.of("source", "/us")))), CE_NAMES),
                Filters.cloudEvents(Map.of("any", List.of(Map.of("exact", Map.of("type", "user.created")),
                        Map.of("sql", "source LIKE '/shop/%' AND subject IS NOT NULL"))), CE_NAMES),
                Filters.cloudEvents(Map.of("all", List.of(Map.of("exact", Map.of("type", "order.created")),
                        Map.of("exact", Map.of("source", "/shop/eu")))), CE_NAMES),
                new FilterSpec.Extension(PropertyEqualsKind.NAME, List.of("color", "red")).compile());
        for (MessageFilter f : filters) {
            final ByteBuf buf = Unpooled.buffer();
            FilterCodec.writeFilter(buf, f);
            final FilterSpec spec = FilterCodec.readFilter(buf);
            assertThat(buf.isReadable()).isFalse();
            buf.release();
            assertThat(spec).as("spec of %s", f).isEqualTo(f.spec());
            final MessageFilter back = spec.compile();
            for (Map<String, String> sample : SAMPLES) {
                assertThat(back.matches(sample)).as("%s on %s", f, sample).isEqualTo(f.matches(sample));
                final long hash = TagFilter.tagHash(sample.get(MessageProperties.TAGS));
                assertThat(back.matchesTagHash(hash)).as("%s on the hash of %s", f, sample)
                        .isEqualTo(f.matchesTagHash(hash));
            }
        }
        // The samples tell the filters apart: each accepts some and rejects some (ALL and the empty tag set aside).
        assertThat(filters.get(3).matches(SAMPLES.get(2))).isTrue();
        assertThat(filters.get(3).matches(SAMPLES.get(3))).isFalse();
        assertThat(filters.get(10).matches(SAMPLES.get(4))).isTrue();
        assertThat(filters.get(10).matches(SAMPLES.get(5))).isFalse();
        assertThat(filters.get(10).matches(SAMPLES.get(6))).isTrue();
        assertThat(filters.get(12).matches(SAMPLES.get(2))).isTrue();
        assertThat(filters.get(12).matches(SAMPLES.get(3))).isFalse();
    }

    @Test
    void shouldRefuseToDescribeAFilterThatReadsItsFrontEndsState() {
        final MessageFilter local = HandMadeFilters.frontEndLocal(properties -> properties.containsKey("x"));
        final ByteBuf buf = Unpooled.buffer();
        assertThatThrownBy(() -> FilterCodec.writeFilter(buf, local)).isInstanceOf(IllegalArgumentException.class);
        buf.release();
    }

    @Test
    void shouldFailAFrameThatLiesAboutALength() {
        final ByteBuf buf = Unpooled.buffer();
        buf.writeInt(1 << 30);
        buf.writeBytes(new byte[16]);
        assertThatThrownBy(() -> ContractCodec.readMessage(buf)).isInstanceOf(MalformedFrameException.class);
        buf.clear();
        buf.writeInt(3).writeBytes("abc".getBytes(StandardCharsets.UTF_8)).writeInt(0);
        assertThatThrownBy(() -> ContractCodec.readMessage(buf)).isInstanceOf(MalformedFrameException.class);
        buf.clear();
        buf.writeByte(99);
        assertThatThrownBy(() -> FilterCodec.readFilter(buf)).isInstanceOf(MalformedFrameException.class);
        buf.release();
    }
}
