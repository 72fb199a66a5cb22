package io.junction.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EndpointTest {

    @Test
    void shouldPrintAsNameEqualsAddress() {
        assertThat(Endpoint.tcp("remoting", "127.0.0.1", 9876)).hasToString("remoting=127.0.0.1:9876");
        assertThat(Endpoint.url("http", "http", "127.0.0.1", 8080, "")).hasToString("http=http://127.0.0.1:8080");
        assertThat(Endpoint.tcp("mqtt", "::1", 1883).address()).isEqualTo("[::1]:1883");
    }
}
