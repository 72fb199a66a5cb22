package io.junction.bench.remoting;

import io.junction.remoting.processor.SendProcessor;
import io.junction.remoting.protocol.HeaderCodec;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.SerializeType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-message CPU cost of the Remoting JSON headers on the send path, the largest share of the front-end's own work
 * in a send-load profile: reading a SEND_MESSAGE_V2 request header as {@code rocketmq-client} 5.3.x writes it, and
 * writing the send response header.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RemotingHeaderBenchmark -f 1 -wi 2 -i 3
 * java -jar benchmarks/target/benchmarks.jar RemotingHeaderBenchmark -prof gc   (bytes allocated per header)
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RemotingHeaderBenchmark {
    /** A 5.3.3 client's SEND_MESSAGE_V2 header (fastjson output: sorted keys, escaped property separators). */
    static final String SEND_REQUEST = "{\"code\":310,\"extFields\":{\"a\":\"bench-producer\",\"b\":\"bench-topic\","
            + "\"bname\":\"junction\",\"c\":\"TBW102\",\"d\":\"4\",\"e\":\"3\",\"f\":\"0\",\"g\":\"1764684000123\","
            + "\"h\":\"0\",\"i\":\"UNIQ_KEY\\u00017F0000010A2B18B4AAC27A2F1B4C0000\\u0002WAIT\\u0001true\\u0002\","
            + "\"j\":\"0\",\"k\":\"false\",\"l\":\"16\",\"m\":\"false\",\"n\":\"junction\"},\"flag\":0,"
            + "\"language\":\"JAVA\",\"opaque\":1048576,\"serializeTypeCurrentRPC\":\"JSON\",\"version\":479}";

    private ByteBuf request;
    private int requestLength;
    private RemotingCommand decoded;
    private ByteBuf out;

    @Setup
    public void setUp() {
        final byte[] bytes = SEND_REQUEST.getBytes(StandardCharsets.UTF_8);
        request = Unpooled.wrappedBuffer(bytes);
        requestLength = bytes.length;
        decoded = HeaderCodec.decode(SerializeType.JSON, request.readerIndex(0), requestLength);
        out = Unpooled.buffer(1024);
    }

    @TearDown
    public void tearDown() {
        request.release();
        out.release();
    }

    @Benchmark
    public RemotingCommand readSendRequest() {
        return HeaderCodec.decode(SerializeType.JSON, request.readerIndex(0), requestLength);
    }

    /** The send response as {@link SendProcessor} builds it, written. */
    @Benchmark
    public int buildAndWriteSendResponse() {
        final RemotingCommand response = SendProcessor.respond(decoded, "7F00000100002694000000000A3B2C1D", 3,
                123456L, "7F0000010A2B18B4AAC27A2F1B4C0000");
        return HeaderCodec.write(response, out.clear());
    }

    /** A response built field by field into the command's own (hash-ordered) map, written: sorted on the way. */
    @Benchmark
    public int writeSendResponse() {
        final RemotingCommand response = RemotingCommand.responseTo(decoded, 0, null)
                .put("msgId", "7F00000100002694000000000A3B2C1D")
                .put("queueId", 3)
                .put("queueOffset", 123456L)
                .put("transactionId", "7F0000010A2B18B4AAC27A2F1B4C0000")
                .put("MSG_REGION", "DefaultRegion")
                .put("TRACE_ON", "false");
        return HeaderCodec.write(response, out.clear());
    }
}
