package io.junction.cloudevents;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.junction.core.message.Message;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes as an HTTP request, through Netty's request decoder and aggregator (as the broker's listener reads
 * them) into the CloudEvents ingress: {@link EventDecoder} (binary, structured and batch modes, validation) and the
 * mapping onto core messages. Every request either yields events that all map to a core message, or is refused with
 * a {@link Problem} (a 4xx answer); any other exception is a finding.
 */
@Tag("fuzz")
class HttpIngressFuzzTest {
    private static final int MAX_REQUEST = 64 * 1024;
    private final EventDecoder decoder = new EventDecoder(new ObjectMapper(), MAX_REQUEST, 16);
    private final CloudEventMapping mapping = new CloudEventMapping("http://127.0.0.1:8080", "io.junction.event");

    @Timeout(1) // while fuzzing: an input that takes over a second is a hang finding (see junit-platform.properties)
    @FuzzTest(maxDuration = "10m")
    void arbitraryRequest(final FuzzedDataProvider data) {
        final EmbeddedChannel channel = new EmbeddedChannel(new HttpRequestDecoder(), new HttpObjectAggregator(
                MAX_REQUEST));
        try {
            channel.writeInbound(Unpooled.wrappedBuffer(data.consumeRemainingAsBytes()));
            for (Object in; (in = channel.readInbound()) != null; ) {
                try {
                    if (in instanceof FullHttpRequest request && request.decoderResult().isSuccess()) {
                        ingest(request);
                    }
                } finally {
                    ReferenceCountUtil.release(in);
                }
            }
        } finally {
            try {
                channel.finishAndReleaseAll();
            } catch (PrematureChannelClosureException expected) {
                // A request cut off mid-body: the listener just closes such a connection.
            }
        }
    }

    private void ingest(final FullHttpRequest request) {
        final List<CloudEvent> events;
        try {
            events = decoder.decode(request);
        } catch (Problem refused) {
            if (refused.status().code() < 400 || refused.status().code() >= 500) {
                throw new IllegalStateException("a refusal must be a client error, was " + refused.status());
            }
            return;
        }
        for (CloudEvent event : events) {
            final Message m = mapping.toMessage("fuzz", event);
            if (m.body() == null || m.properties() == null) {
                throw new IllegalStateException("event mapped to an incomplete message: " + event);
            }
        }
    }
}
