package io.junction.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NamespacesTest {

    @Test
    void qualifyWrapsOnceAndLeavesTheDefaultNamespaceAlone() {
        assertThat(Namespaces.qualify("acme", "orders")).isEqualTo("acme%orders");
        assertThat(Namespaces.qualify("acme", "acme%orders")).isEqualTo("acme%orders");
        assertThat(Namespaces.qualify("default", "orders")).isEqualTo("orders");
        assertThat(Namespaces.unqualify("acme", "acme%orders")).isEqualTo("orders");
        assertThat(Namespaces.unqualify("acme", "globex%orders")).isEqualTo("globex%orders");
    }

    @Test
    void localNameRefusesEverythingOutsideTheNamespace() {
        final java.util.function.Predicate<String> tenants = java.util.Set.of("acme", "globex")::contains;
        assertThat(Namespaces.localName("acme", "acme%orders", tenants)).isEqualTo("orders");
        assertThat(Namespaces.localName("acme", "acme%caf%C3%A9", tenants)).as("escaped MQTT level")
                .isEqualTo("caf%C3%A9");
        assertThat(Namespaces.localName("acme", "%RETRY%acme%g", tenants)).isEqualTo("g");
        assertThat(Namespaces.localName("acme", "orders", tenants)).isNull();
        assertThat(Namespaces.localName("acme", "acme%", tenants)).isNull();
        assertThat(Namespaces.localName("acme", "globex%orders", tenants)).isNull();
        assertThat(Namespaces.localName("default", "orders", tenants)).isEqualTo("orders");
        assertThat(Namespaces.localName("default", "%24SYS", tenants)).isEqualTo("%24SYS");
        assertThat(Namespaces.localName("default", "caf%C3%A9", tenants)).isEqualTo("caf%C3%A9");
        assertThat(Namespaces.localName("default", "acme%orders", tenants)).as("default may not reach a tenant")
                .isNull();
        assertThat(Namespaces.localName("default", "%DLQ%acme%g", tenants)).isNull();
        assertThat(Namespaces.localName("default", "%DLQ%g", tenants)).isEqualTo("g");
    }

    @Test
    void namespaceNamesAreRestricted() {
        assertThat(Namespaces.valid("acme-1_x")).isTrue();
        assertThat(Namespaces.valid("a%b")).isFalse();
        assertThat(Namespaces.valid("")).isFalse();
        assertThat(Namespaces.valid("x".repeat(65))).isFalse();
    }
}
