package io.junction.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.spi.clients.ClientRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class ClientChannelsTest {

    @Test
    void shouldRememberPerChannelAndGroupWhichClientsStartFromATimestamp() {
        final ClientChannels channels = new ClientChannels();
        final EmbeddedChannel timed = new EmbeddedChannel();
        final EmbeddedChannel other = new EmbeddedChannel();

        channels.startFromTimestamp(timed, "g", true);
        channels.startFromTimestamp(other, "g", false);

        assertThat(channels.startsFromTimestamp(timed, "g")).isTrue();
        assertThat(channels.startsFromTimestamp(timed, "h")).isFalse();
        assertThat(channels.startsFromTimestamp(other, "g")).isFalse();
        // The latest heartbeat wins.
        channels.startFromTimestamp(timed, "g", false);
        assertThat(channels.startsFromTimestamp(timed, "g")).isFalse();
    }

    @Test
    void shouldListAChannelOnItsFirstHeartbeatWithItsGroupsAndUnlistItWhenItCloses() {
        final ClientRegistry registry = new ClientRegistry();
        final ClientChannels channels = new ClientChannels(registry);
        final EmbeddedChannel channel = new EmbeddedChannel();
        ClientChannels.actingAs(channel, "dave");

        channels.heartbeatFrom(channel, "10.0.0.1@42", "JAVA", 453);
        channels.register(channel, true, "orders-consumers", "10.0.0.1@42");
        channels.register(channel, false, "orders-producers", "10.0.0.1@42");
        channels.heartbeatFrom(channel, "10.0.0.1@42", "JAVA", 453); // later heartbeats list nothing more

        assertThat(registry.list()).singleElement().satisfies(c -> {
            assertThat(c.protocol()).isEqualTo("remoting");
            assertThat(c.version()).isEqualTo("JAVA 453");
            assertThat(c.clientId()).isEqualTo("10.0.0.1@42");
            assertThat(c.user()).isEqualTo("dave");
            assertThat(c.details().get()).containsExactly("consumer of orders-consumers",
                    "producer of orders-producers");
        });
        registry.list().get(0).disconnect().run();
        assertThat(channel.isOpen()).isFalse();
        channels.channelClosed(channel);
        assertThat(registry.list()).isEmpty();
    }

    @Test
    void shouldNotListAChannelThatClosedBeforeItsHeartbeatWasProcessed() {
        final ClientRegistry registry = new ClientRegistry();
        final ClientChannels channels = new ClientChannels(registry);
        final EmbeddedChannel channel = new EmbeddedChannel();
        channel.close();

        channels.heartbeatFrom(channel, "late", "JAVA", 453);

        assertThat(registry.list()).isEmpty();
    }
}
