package io.junction.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AddressNamesTest {

    @ParameterizedTest
    @CsvSource({"orders,orders", "a/b,a%2Fb", "café,caf%C3%A9", "100%,100%25", "'.',%2E", "'..',%2E%2E",
            "ID:x,ID%3Ax", "sub|2,sub|2", "%DLQ%orders,%DLQ%orders", "%RETRY%g_orders,%RETRY%g_orders"})
    void shouldEscapeReversibly(final String address, final String core) {
        assertThat(AddressNames.toCore(address)).isEqualTo(core);
        assertThat(AddressNames.toAddress(core)).isEqualTo(address);
    }

    @ParameterizedTest
    @CsvSource({"''", "a"})
    void shouldRefuseEmptyAndTooLongNames(final String seed) {
        assertThat(AddressNames.toCore(seed.isEmpty() ? "" : seed.repeat(300))).isNull();
    }
}
