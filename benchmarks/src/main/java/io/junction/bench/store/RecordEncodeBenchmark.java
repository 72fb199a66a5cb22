package io.junction.bench.store;

import io.junction.core.log.RecordCodec;
import io.junction.core.message.Message;
import io.junction.core.message.MessageIds;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-message CPU cost of rendering a commit-log record: {@link RecordCodec#encode} (runs on the sender's thread)
 * followed by {@link RecordCodec#seal} (runs on the single appender thread: store-time fields and the CRC32C over the
 * whole record). The message is what a RocketMQ producer typically sends: a 1 KiB body, a tag, keys, three user
 * properties and the unique id the store adds when the producer gave none.
 *
 * <ul>
 *   <li>{@code encodeAndSeal}: the whole cost per message;</li>
 *   <li>{@code encode}: the sender-thread part;</li>
 *   <li>{@code seal}: the appender-thread part (re-sealing one rendered record), which bounds the single writer's
 *   rate from the CPU side.</li>
 * </ul>
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RecordEncodeBenchmark -f 1 -wi 2 -i 3
 * java -jar benchmarks/target/benchmarks.jar RecordEncodeBenchmark -prof gc   (bytes allocated per message)
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RecordEncodeBenchmark {
    private static final InetSocketAddress STORE_HOST = new InetSocketAddress("127.0.0.1", 9876);
    private static final long STORE_TIMESTAMP = 1_700_000_000_000L;

    @Param({"1024"})
    public int bodySize;

    private Message message;
    private ByteBuffer rendered;
    private long queueOffset;
    private long physicalOffset;

    @Setup
    public void setUp() {
        final byte[] body = new byte[bodySize];
        final SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) random.nextInt(256);
        }
        message = Message.builder("bench-topic")
                .queueId(3)
                .body(body)
                .tag("TagA")
                .keys("order-20240501-0001 customer-42")
                .uniqueId(MessageIds.newUniqueId())
                .property("region", "eu-west-1")
                .property("traceId", "4bf92f3577b34da6a3ce929d0e0e4736")
                .property("priority", "high")
                .bornHost(new InetSocketAddress("10.0.0.12", 53412))
                .build();
        rendered = RecordCodec.encode(message, STORE_HOST);
    }

    @Benchmark
    public ByteBuffer encodeAndSeal() {
        final ByteBuffer record = RecordCodec.encode(message, STORE_HOST);
        final int length = record.remaining();
        RecordCodec.seal(record, message.queueId(), queueOffset++, physicalOffset, STORE_TIMESTAMP, 0);
        physicalOffset += length;
        return record;
    }

    @Benchmark
    public ByteBuffer encode() {
        return RecordCodec.encode(message, STORE_HOST);
    }

    @Benchmark
    public ByteBuffer seal() {
        final ByteBuffer record = rendered;
        RecordCodec.seal(record, message.queueId(), queueOffset++, physicalOffset, STORE_TIMESTAMP, 0);
        physicalOffset += record.remaining();
        return record;
    }
}
