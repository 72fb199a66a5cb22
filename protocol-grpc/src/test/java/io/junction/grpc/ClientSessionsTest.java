package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.Language;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import apache.rocketmq.v2.UA;
import io.grpc.stub.StreamObserver;
import io.junction.spi.clients.ClientRegistry;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientSessionsTest {

    private final ClientRegistry registry = new ClientRegistry();
    private final List<SocketAddress> closedConnections = new ArrayList<>();
    private final ClientSessions sessions = new ClientSessions(registry, closedConnections::add);

    @Test
    void shouldListAClientWithWhatItDeclaredAndEndItsStreamAndConnectionOnDisconnect() {
        final ClientSessions.Session session = sessions.getOrCreate("consumer-1");
        session.settings(Settings.newBuilder().setClientType(ClientType.SIMPLE_CONSUMER)
                .setUserAgent(UA.newBuilder().setLanguage(Language.JAVA).setVersion("5.0.7"))
                .setSubscription(Subscription.newBuilder().setGroup(Resource.newBuilder().setName("orders-group"))
                        .addSubscriptions(SubscriptionEntry.newBuilder()
                                .setTopic(Resource.newBuilder().setName("orders"))
                                .setExpression(FilterExpression.newBuilder().setExpression("*"))))
                .build());
        final Stream stream = new Stream();
        session.attach(stream, null);
        final InetSocketAddress remote = new InetSocketAddress("127.0.0.1", 40000);

        final ClientRegistry.Registration listed = sessions.list(session, stream, "dave", remote);

        assertThat(registry.list()).singleElement().satisfies(c -> {
            assertThat(c.protocol()).isEqualTo("grpc");
            assertThat(c.version()).isEqualTo("JAVA 5.0.7");
            assertThat(c.clientId()).isEqualTo("consumer-1");
            assertThat(c.user()).isEqualTo("dave");
            assertThat(c.remote()).isEqualTo("127.0.0.1:40000");
            assertThat(c.details().get()).containsExactly("simple consumer", "consumer group orders-group",
                    "subscribes to orders (*)");
        });
        registry.list().get(0).disconnect().run();
        assertThat(stream.completed).isTrue();
        assertThat(session.connected()).isFalse();
        assertThat(closedConnections).containsExactly(remote);
        listed.close();
        assertThat(registry.list()).isEmpty();
    }

    @Test
    void shouldDescribeAProducerByTheTopicsItPublishesTo() {
        assertThat(ClientSessions.describe(Settings.newBuilder().setClientType(ClientType.PRODUCER)
                .setPublishing(Publishing.newBuilder()
                        .addTopics(Resource.newBuilder().setName("a")).addTopics(Resource.newBuilder().setName("b")))
                .build())).containsExactly("producer", "publishes to a", "publishes to b");
    }

    /** A Telemetry stream's server side that records its end. */
    private static final class Stream implements StreamObserver<TelemetryCommand> {
        boolean completed;

        @Override
        public void onNext(final TelemetryCommand value) {
        }

        @Override
        public void onError(final Throwable t) {
        }

        @Override
        public void onCompleted() {
            completed = true;
        }
    }
}
