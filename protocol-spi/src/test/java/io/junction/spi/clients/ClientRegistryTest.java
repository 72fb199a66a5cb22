package io.junction.spi.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.spi.clients.ClientRegistry.ClientConnection;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Connections are listed while registered, oldest first, and disconnect through what their front-end gave. */
class ClientRegistryTest {

    private final ClientRegistry registry = new ClientRegistry();

    @Test
    void shouldListConnectionsUntilTheirRegistrationCloses() {
        final AtomicInteger disconnects = new AtomicInteger();
        final ClientRegistry.Registration first = registry.add("mqtt", "5.0", "sensor-1", "dave",
                new InetSocketAddress("127.0.0.1", 40001), () -> List.of("a/#"), disconnects::incrementAndGet);
        registry.add("amqp", "1.0", null, null, null, List::of, () -> { });

        final List<ClientConnection> listed = registry.list();
        assertThat(listed).extracting(ClientConnection::protocol).containsExactly("mqtt", "amqp");
        final ClientConnection sensor = listed.get(0);
        assertThat(sensor.version()).isEqualTo("5.0");
        assertThat(sensor.clientId()).isEqualTo("sensor-1");
        assertThat(sensor.user()).isEqualTo("dave");
        assertThat(sensor.remote()).isEqualTo("127.0.0.1:40001");
        assertThat(sensor.details().get()).containsExactly("a/#");
        assertThat(listed.get(1).clientId()).isEmpty();
        assertThat(listed.get(1).remote()).isEmpty();

        registry.get(sensor.id()).orElseThrow().disconnect().run();
        assertThat(disconnects).hasValue(1);

        first.close();
        first.close();
        assertThat(registry.get(sensor.id())).isEmpty();
        assertThat(registry.list()).extracting(ClientConnection::protocol).containsExactly("amqp");
    }
}
