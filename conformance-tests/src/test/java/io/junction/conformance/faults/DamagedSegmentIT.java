package io.junction.conformance.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flipped bit in a commit-log segment of a stopped broker: after the restart the damaged message is detected by its
 * CRC, reported (log and {@code junction_store_damaged_records}) and skipped, and every other message is served.
 */
@Tag("crash")
class DamagedSegmentIT {
    private static final int MESSAGES = 20;
    private static final int DAMAGED = 7;

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @TempDir
    Path dir;

    @Test
    void shouldSkipTheDamagedMessageReportItAndServeTheRest() throws Exception {
        final Path data = dir.resolve("data");
        final List<Long> offsets = new ArrayList<>();
        try (RunningBroker broker = RunningBroker.builder().dataDir(data).set("store.segment-size", "8m").start()) {
            final DefaultMQProducer producer = new DefaultMQProducer("ds-producers");
            producer.setNamesrvAddr(broker.nameServer());
            producer.setInstanceName("ds-p");
            producer.start();
            for (int i = 0; i < MESSAGES; i++) {
                final SendResult r = producer.send(new Message("dsr", "t", "k" + i, body(i)));
                offsets.add(MessageDecoder.decodeMessageId(r.getOffsetMsgId()).getOffset());
            }
            producer.shutdown();
            assertThat(broker.process().terminate(Duration.ofSeconds(30))).isZero();

            // One bit of message 7's body, well past its header.
            flipBit(data.resolve("commitlog").resolve(String.format("%020d", 0)), offsets.get(DAMAGED) + 180);

            broker.startOnSamePorts();
            final Map<String, String> found = drain(broker, MESSAGES - 1);
            final Map<String, String> expected = new LinkedHashMap<>();
            for (int i = 0; i < MESSAGES; i++) {
                if (i != DAMAGED) {
                    expected.put("k" + i, new String(body(i), StandardCharsets.UTF_8));
                }
            }
            assertThat(found).as("every undamaged message, intact; the damaged one never served")
                    .containsExactlyInAnyOrderEntriesOf(expected);
            assertThat(broker.get("/metrics").body()).contains("junction_store_damaged_records 1.0");
            assertThat(broker.process().stdout() + broker.process().stderr())
                    .contains("record fails its check (damaged on disk)");
        }
    }

    private static byte[] body(final int i) {
        return ("message " + i + " " + "y".repeat(400)).getBytes(StandardCharsets.UTF_8);
    }

    private static void flipBit(final Path file, final long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x04)).rewind();
            ch.write(one, position);
        }
    }

    private static Map<String, String> drain(final RunningBroker broker, final int count) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("ds-drain");
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName("ds-c");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("dsr", "*");
        consumer.start();
        try {
            final Map<String, String> found = new LinkedHashMap<>();
            final long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            // Keep polling a little past the expected count: the damaged message must not turn up late either.
            long quietUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(end, quietUntil)) {
                for (MessageExt m : consumer.poll(300)) {
                    found.put(m.getKeys(), new String(m.getBody(), StandardCharsets.UTF_8));
                }
                if (found.size() >= count && quietUntil == Long.MAX_VALUE) {
                    quietUntil = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                }
            }
            return found;
        } finally {
            consumer.shutdown();
        }
    }
}
