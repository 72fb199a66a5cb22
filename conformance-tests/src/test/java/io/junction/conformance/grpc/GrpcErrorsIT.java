package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Errors the 5.x Java client sees as exceptions, with auto-creation of topics off. */
@WithBroker(settings = {"store.auto-create-topics=false", "grpc.auto-create-topics=false"})
class GrpcErrorsIT {
    static RunningBroker broker;
    GrpcClients clients;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @BeforeEach
    void clients() {
        clients = new GrpcClients(broker);
    }

    @AfterEach
    void close() {
        clients.close();
    }

    @Test
    void shouldFailASendToAMissingTopicWithTopicNotFound() throws Exception {
        final String topic = unique("grpc-missing");
        final Producer producer = clients.producer();
        assertThatThrownBy(() -> producer.send(PROVIDER.newMessageBuilder().setTopic(topic)
                .setBody(utf8("nowhere")).build()))
                .isInstanceOf(ClientException.class)
                .hasMessageContaining("40402")
                .hasMessageContaining(topic);
    }

    @Test
    void shouldFailToStartAProducerOfAMissingTopic() {
        final String topic = unique("grpc-missing");
        assertThatThrownBy(() -> clients.producer(topic)).isInstanceOf(Exception.class);
    }
}
