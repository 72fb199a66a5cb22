package io.junction.broker.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.spi.http.HttpHandler;
import io.junction.spi.http.HttpRoute;
import org.junit.jupiter.api.Test;

class HttpRouterTest {

    private final HttpRouter router = new HttpRouter();
    private final HttpHandler topics = exchange -> { };
    private final HttpHandler orders = exchange -> { };
    private final HttpHandler mqtt = exchange -> { };

    @Test
    void shouldMatchPrefixesOnPathSegmentBoundaries() {
        router.register("/topics/", topics);
        router.register("/mqtt", mqtt);

        assertThat(router.find("/topics/orders")).isSameAs(topics);
        assertThat(router.find("/topics/")).isSameAs(topics);
        assertThat(router.find("/topics")).isNull();
        assertThat(router.find("/mqtt")).isSameAs(mqtt);
        assertThat(router.find("/mqtt/sub")).isSameAs(mqtt);
        assertThat(router.find("/mqttx")).isNull();
        assertThat(router.find("/")).isNull();
    }

    @Test
    void shouldPreferTheLongestPrefix() {
        router.register("/topics/", topics);
        router.register("/topics/orders/", orders);

        assertThat(router.find("/topics/orders/events")).isSameAs(orders);
        assertThat(router.find("/topics/payments")).isSameAs(topics);
    }

    @Test
    void shouldRefuseDuplicateAndRelativePrefixes() {
        router.register("/mqtt", mqtt);

        assertThatThrownBy(() -> router.register("/mqtt", topics)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> router.register("mqtt", topics)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldForgetAClosedRoute() {
        final HttpRoute route = router.register("/mqtt", mqtt);

        route.close();

        assertThat(router.find("/mqtt")).isNull();
        router.register("/mqtt", topics); // free again
        assertThat(router.find("/mqtt")).isSameAs(topics);
    }
}
