package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.Resource;
import org.junit.jupiter.api.Test;

class ResourceNamesTest {
    private static Resource r(final String namespace, final String name) {
        return Resource.newBuilder().setResourceNamespace(namespace).setName(name).build();
    }

    @Test
    void shouldWrapANamespacedNameAndLeaveOthersAlone() {
        assertThat(ResourceNames.core(r("acme", "orders"))).isEqualTo("acme%orders");
        assertThat(ResourceNames.core(r("", "orders"))).isEqualTo("orders");
        assertThat(ResourceNames.core(r("acme", ""))).isEmpty();
        // a name already wrapped in its own namespace is not wrapped twice; another tenant's prefix stays visible
        assertThat(ResourceNames.core(r("acme", "acme%orders"))).isEqualTo("acme%orders");
        assertThat(ResourceNames.core(r("globex", "acme%orders"))).isEqualTo("globex%acme%orders");
        assertThat(ResourceNames.core(r("", "acme%orders"))).isEqualTo("acme%orders");
    }

    @Test
    void shouldShowACoreNameAsTheClientNamedIt() {
        assertThat(ResourceNames.shown("acme", "acme%orders")).isEqualTo(r("acme", "orders"));
        assertThat(ResourceNames.shown("", "orders")).isEqualTo(r("", "orders"));
        assertThat(ResourceNames.core(ResourceNames.shown("acme", "acme%orders"))).isEqualTo("acme%orders");
    }
}
