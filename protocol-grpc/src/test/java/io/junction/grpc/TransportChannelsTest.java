package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.embedded.EmbeddedChannel;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class TransportChannelsTest {

    /** What the wrapped negotiator installs: a handler the test can find in the pipeline. */
    private static final class Negotiation extends ChannelInboundHandlerAdapter {
    }

    private static final class FixedNegotiator implements InternalProtocolNegotiator.ProtocolNegotiator {
        @Override
        public AsciiString scheme() {
            return AsciiString.of("http");
        }

        @Override
        public ChannelHandler newHandler(final GrpcHttp2ConnectionHandler grpcHandler) {
            return new Negotiation();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void shouldStepAsideForTheWrappedNegotiationAndCloseAConnectionByItsAddress() {
        final TransportChannels transports = new TransportChannels(new FixedNegotiator());
        // (every embedded channel has the same remote address: one connection per test)
        final EmbeddedChannel client = new EmbeddedChannel(transports.newHandler(null));

        assertThat(client.pipeline().get(Negotiation.class)).isNotNull();
        assertThat(client.pipeline().names()).hasSize(2); // the negotiation and the pipeline's tail
        transports.close(new InetSocketAddress("127.0.0.1", 1)); // nobody there
        assertThat(client.isOpen()).isTrue();

        transports.close(client.remoteAddress());

        assertThat(client.isOpen()).isFalse();
    }
}
