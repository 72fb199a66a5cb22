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
        assertThat(Namespaces.localName("acme", "acme%orders")).isEqualTo("orders");
        assertThat(Namespaces.localName("acme", "%RETRY%acme%g")).isEqualTo("g");
        assertThat(Namespaces.localName("acme", "orders")).isNull();
        assertThat(Namespaces.localName("acme", "acme%")).isNull();
        assertThat(Namespaces.localName("default", "orders")).isEqualTo("orders");
        assertThat(Namespaces.localName("default", "acme%orders")).as("default may not reach a tenant").isNull();
        assertThat(Namespaces.localName("default", "%DLQ%g")).isEqualTo("g");
    }

    @Test
    void namespaceNamesAreRestricted() {
        assertThat(Namespaces.valid("acme-1_x")).isTrue();
        assertThat(Namespaces.valid("a%b")).isFalse();
        assertThat(Namespaces.valid("")).isFalse();
        assertThat(Namespaces.valid("x".repeat(65))).isFalse();
    }
}
