package io.junction.remoting;

import static org.assertj.core.api.Assertions.assertThat;

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
}
