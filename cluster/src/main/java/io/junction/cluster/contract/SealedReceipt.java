package io.junction.cluster.contract;

import io.junction.core.Receipt;
import java.util.Objects;

/** A receipt that came over the wire: only its sealed text, which the node that made it opens when it is acked. */
record SealedReceipt(String sealed) implements Receipt {
    SealedReceipt {
        Objects.requireNonNull(sealed, "sealed");
    }
}
