package io.junction.conformance.flink;

import java.util.Locale;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
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
 * transactional id prefix. Prints {@code done} and exits 0 when the job finished, exits 1 with the failure otherwise.
 */
public final class FlinkJobDriver {
    private FlinkJobDriver() {
    }

    public static void main(final String[] args) {
        if (args.length != 6) {
            System.err.println("usage: FlinkJobDriver <bootstrap> <in> <out> <group> <guarantee> <txn-prefix>");
            System.exit(2);
        }
        try {
            run(args[0], args[1], args[2], args[3], DeliveryGuarantee.valueOf(args[4]), args[5]);
            System.out.println("done");
            System.exit(0);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(final String bootstrap, final String in, final String out, final String group,
                            final DeliveryGuarantee guarantee, final String prefix) throws Exception {
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
                .map(v -> v.toUpperCase(Locale.ROOT))
                .sinkTo(sink);
        env.execute("junction-flink-" + guarantee.name().toLowerCase(Locale.ROOT));
    }
}
