package io.junction.conformance.flink;

import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs one Flink job on a local mini cluster (parallelism 2): KafkaSource reads {@code in} from the earliest offset
 * up to the offsets it finds at start (bounded), each value is upper-cased, and KafkaSink writes the results to
 * {@code out} with the delivery guarantee given. With EXACTLY_ONCE the job checkpoints every 500 ms, the sink writes
 * in Kafka transactions ({@code transactionalIdPrefix}, transaction.timeout.ms one minute: Flink's default hour is
 * above a broker's maximum) and commits each one once its checkpoint completes; the bounded job ends with a final
 * checkpoint, so everything is committed when it returns.
 *
 * <p>Arguments: bootstrap servers, input topic, output topic, consumer group id, AT_LEAST_ONCE or EXACTLY_ONCE,
 * transactional id prefix, and optionally a record count after which the job fails once (then it restarts from its
 * last completed checkpoint: the sink's transactions of that checkpoint are committed, later ones aborted, and the
 * records after it read again); with it each record takes 20 ms, so checkpoints complete while the job runs. Prints
 * {@code done} and exits 0 when the job finished, exits 1 with the failure otherwise.
 */
public final class FlinkJobDriver {
    private FlinkJobDriver() {
    }

    public static void main(final String[] args) {
        if (args.length != 6 && args.length != 7) {
            System.err.println("usage: FlinkJobDriver <bootstrap> <in> <out> <group> <guarantee> <txn-prefix>"
                    + " [fail-once-after-records]");
            System.exit(2);
        }
        try {
            run(args[0], args[1], args[2], args[3], DeliveryGuarantee.valueOf(args[4]), args[5],
                    args.length == 7 ? Long.parseLong(args[6]) : -1);
            System.out.println("done");
            System.exit(0);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(final String bootstrap, final String in, final String out, final String group,
                            final DeliveryGuarantee guarantee, final String prefix, final long failAfter)
            throws Exception {
        final KafkaSource<String> source = KafkaSource.<String>builder().setBootstrapServers(bootstrap)
                .setTopics(in).setGroupId(group)
                .setStartingOffsets(OffsetsInitializer.earliest()).setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(new SimpleStringSchema()).build();
        final Properties producer = new Properties();
        producer.put("transaction.timeout.ms", "60000");
        final KafkaSink<String> sink = KafkaSink.<String>builder().setBootstrapServers(bootstrap)
                .setRecordSerializer(KafkaRecordSerializationSchema.builder().setTopic(out)
                        .setValueSerializationSchema(new SimpleStringSchema()).build())
                .setDeliveryGuarantee(guarantee).setTransactionalIdPrefix(prefix)
                .setKafkaProducerConfig(producer).build();
        final StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        if (guarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            env.enableCheckpointing(500);
        }
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "junction-in")
                .map(new UpperCase(failAfter))
                .sinkTo(sink);
        env.execute("junction-flink-" + guarantee.name().toLowerCase(Locale.ROOT));
    }

    /** Upper-cases a value; fails the job once after {@code failAfter} records (all subtasks share this JVM). */
    private static final class UpperCase implements MapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private static final AtomicLong SEEN = new AtomicLong();
        private static final AtomicBoolean FAILED = new AtomicBoolean();
        private final long failAfter;

        UpperCase(final long failAfter) {
            this.failAfter = failAfter;
        }

        @Override
        public String map(final String value) throws Exception {
            if (failAfter > 0) {
                Thread.sleep(20); // paced, so checkpoints complete between records
                if (SEEN.incrementAndGet() == failAfter && FAILED.compareAndSet(false, true)) {
                    throw new IllegalStateException("failing once after " + failAfter + " records, as asked");
                }
            }
            return value.toUpperCase(Locale.ROOT);
        }
    }
}
