package io.junction.cluster.contract;

import static io.junction.cluster.contract.WireRoundTrip.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.junction.cluster.contract.MirrorSnapshot.QueueRange;
import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.RuntimeFigures;
import io.junction.core.filter.TagFilter;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.QueueLag;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Bodies of the admin operations that do not decode: cut short, claiming more than they hold, of another kind, or
 * garbage. Each must fail as a {@link MalformedFrameException} (which the server answers as a bad request), never as
 * another exception, an allocation the size of a lying count, or a value read past the end.
 */
class AdminCodecMalformedTest {
    private static final int GARBAGE_ROUNDS = 2_000;

    /** One body kind: a valid sample's bytes and the reader of that kind. */
    private record Kind(String name, byte[] sample, Function<ByteBuf, ?> read) {
    }

    private static final TopicConfig TOPIC = new TopicConfig("orders", 4, TopicType.FIFO, TopicConfig.PERM_READ,
            Map.of("message.type", "FIFO"));
    private static final GroupConfig GROUP = new GroupConfig("g", 3, true, false, Map.of("k", "v"));
    private static final ConsumerClient CLIENT = new ConsumerClient("c1", Map.of("orders",
            new ConsumerClient.Subscription("TAG", "a || b")), false, 99L);

    /** Every kind the admin operations carry, requests and answers. */
    private static List<Kind> kinds() {
        return List.of(
                new Kind("topology", written(b -> AdminCodec.writeTopology(b, new StoreTopology("n1",
                        Map.of("n1", "10.0.0.1:9801")))), AdminCodec::readTopology),
                new Kind("mirror", written(b -> AdminCodec.writeMirror(b, new MirrorSnapshot(Map.of("topics",
                        new byte[] {1, 2}), List.of(new QueueRange("orders", 0, 1, 5)), Map.of("g", List.of(CLIENT)),
                        1000L))), AdminCodec::readMirror),
                new Kind("topic", written(b -> AdminCodec.writeTopic(b, TOPIC)), AdminCodec::readTopic),
                new Kind("group", written(b -> AdminCodec.writeGroup(b, GROUP)), AdminCodec::readGroup),
                new Kind("optional group", written(b -> AdminCodec.writeOptionalGroup(b, Optional.of(GROUP))),
                        AdminCodec::readOptionalGroup),
                new Kind("browse request", written(b -> AdminCodec.writeBrowseRequest(b, new BrowseRequest("g",
                        "orders", TagFilter.parse("a || b"), new long[] {3, 9}, 16))), AdminCodec::readBrowseRequest),
                new Kind("browse result", written(b -> AdminCodec.writeBrowseResult(b, new BrowseResult(List.of(),
                        new long[] {4}, false))), AdminCodec::readBrowseResult),
                new Kind("subscriptions", written(b -> AdminCodec.writeSubscriptions(b, CLIENT.subscriptions())),
                        AdminCodec::readSubscriptions),
                new Kind("clients", written(b -> AdminCodec.writeClients(b, List.of(CLIENT))), AdminCodec::readClients),
                new Kind("queue ids", written(b -> AdminCodec.writeQueueIds(b, Set.of(0, 2))),
                        AdminCodec::readQueueIds),
                new Kind("lags", written(b -> AdminCodec.writeLags(b, List.of(new QueueLag(0, 5, 9, 4, 1000, 900)))),
                        AdminCodec::readLags),
                new Kind("queue offsets", written(b -> AdminCodec.writeQueueOffsets(b, Map.of(0, 12L))),
                        AdminCodec::readQueueOffsets),
                new Kind("runtime figures", written(b -> AdminCodec.writeRuntime(b, new RuntimeFigures(1L,
                        new RuntimeFigures.Rates(1, 2, 3), new RuntimeFigures.Rates(0, 0, 0),
                        new RuntimeFigures.Rates(4, 5, 6), new RuntimeFigures.Rates(7, 8, 9),
                        new RuntimeFigures.Totals(10, 11, 12), new RuntimeFigures.Totals(13, 14, 15), 16, 17, 18,
                        19, 0.5, 20))), AdminCodec::readRuntime));
    }

    /** Reads {@code body} with {@code read}; the exception it failed with, or null when it read a value. */
    private static Throwable readFailure(final Function<ByteBuf, ?> read, final byte[] body) {
        final ByteBuf buf = Unpooled.wrappedBuffer(body);
        try {
            return catchThrowable(() -> read.apply(buf));
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldFailEveryTruncatedBodyAsMalformed() {
        for (Kind kind : kinds()) {
            for (int length = 0; length < kind.sample().length; length++) {
                assertThat(readFailure(kind.read(), Arrays.copyOf(kind.sample(), length)))
                        .as("%s cut to %d of %d bytes", kind.name(), length, kind.sample().length)
                        .isInstanceOf(MalformedFrameException.class);
            }
        }
    }

    @Test
    void shouldFailACountOrLengthLargerThanTheBodyWithoutAllocatingIt() {
        for (int count : new int[] {Integer.MAX_VALUE, 1 << 30, 65_537, -2}) {
            final byte[] lying = written(b -> b.writeInt(count));
            for (Kind kind : kinds()) {
                if (kind.name().equals("optional group") || kind.name().equals("runtime figures")) {
                    continue; // these open with a flag or a timestamp, not a count
                }
                assertThat(readFailure(kind.read(), lying)).as("%s with a count of %d", kind.name(), count)
                        .isInstanceOf(MalformedFrameException.class);
            }
        }
        // More tables than a store has: refused before reading them.
        final byte[] tables = written(b -> {
            b.writeInt(17);
            for (int i = 0; i < 17; i++) {
                WireFormat.writeString(b, "t" + i);
                WireFormat.writeBytes(b, new byte[0]);
            }
        });
        assertThatThrownBy(() -> AdminCodec.readMirror(Unpooled.wrappedBuffer(tables)))
                .isInstanceOf(MalformedFrameException.class).hasMessageContaining("table count 17");
    }

    /**
     * Reads a request body as the server does: the whole of it, so bytes left over fail it too. The fields carry no
     * type tags, so a body of another kind shows itself by not fitting: too short, or too long.
     */
    private static Function<ByteBuf, ?> whole(final Function<ByteBuf, ?> read) {
        return in -> {
            final Object value = read.apply(in);
            if (in.isReadable()) {
                throw new MalformedFrameException(in.readableBytes() + " bytes after the body");
            }
            return value;
        };
    }

    @Test
    void shouldFailABodyOfAnotherKind() {
        final byte[] topic = written(b -> AdminCodec.writeTopic(b, TOPIC));
        final byte[] group = written(b -> AdminCodec.writeGroup(b, GROUP));
        assertThat(readFailure(whole(AdminCodec::readGroup), topic)).as("a topic read as a group")
                .isInstanceOf(MalformedFrameException.class);
        assertThat(readFailure(whole(AdminCodec::readTopic), group)).as("a group read as a topic")
                .isInstanceOf(MalformedFrameException.class);
        final byte[] lags = written(b -> AdminCodec.writeLags(b, List.of(new QueueLag(0, 5, 9, 4, 1000, 900))));
        assertThat(readFailure(whole(AdminCodec::readSubscriptions), lags)).as("lags read as subscriptions")
                .isInstanceOf(MalformedFrameException.class);
        final byte[] ids = written(b -> AdminCodec.writeQueueIds(b, Set.of(1)));
        assertThat(readFailure(whole(AdminCodec::readBrowseRequest), ids)).as("queue ids read as a browse request")
                .isInstanceOf(MalformedFrameException.class);
        final byte[] mirror = written(b -> AdminCodec.writeMirror(b, new MirrorSnapshot(Map.of(), List.of(),
                Map.of(), 1L)));
        assertThat(readFailure(whole(AdminCodec::readClients), mirror)).as("a mirror read as clients")
                .isInstanceOf(MalformedFrameException.class);
    }

    @Test
    void shouldReadGarbageAndDamagedBodiesAsAValueOrAMalformedBodyOnly() {
        final Random random = new Random(20261206L);
        final List<String> wrong = new ArrayList<>();
        for (Kind kind : kinds()) {
            for (int round = 0; round < GARBAGE_ROUNDS; round++) {
                final byte[] body;
                if (round % 2 == 0) {
                    body = new byte[random.nextInt(64)];
                    random.nextBytes(body);
                } else { // the sample with a few bytes changed: deeper into the reader than pure noise gets
                    body = kind.sample().clone();
                    for (int i = 1 + random.nextInt(3); i > 0; i--) {
                        body[random.nextInt(body.length)] = (byte) random.nextInt(256);
                    }
                }
                final Throwable failure = readFailure(kind.read(), body);
                if (failure != null && !(failure instanceof MalformedFrameException)) {
                    wrong.add(kind.name() + " " + Arrays.toString(body) + ": " + failure);
                }
            }
        }
        assertThat(wrong).as("bodies that failed with something other than a malformed body").isEmpty();
    }
}
