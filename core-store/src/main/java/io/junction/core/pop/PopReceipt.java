package io.junction.core.pop;

import io.junction.core.Receipt;

/** A receipt made by one {@link PopService}: the handle as it is, sealed into text only when a client needs it. */
final class PopReceipt implements Receipt {
    final ReceiptHandle handle;
    private final ReceiptHandle.Codec codec;
    /** Sealed on first use; a race seals twice to equal text, which is harmless. */
    private String sealed;

    PopReceipt(final ReceiptHandle handle, final ReceiptHandle.Codec codec) {
        this.handle = handle;
        this.codec = codec;
    }

    /** Whether this receipt was made by the service holding {@code codec} (so its handle needs no checking). */
    boolean madeWith(final ReceiptHandle.Codec codec) {
        return this.codec == codec;
    }

    @Override
    public String sealed() {
        String s = sealed;
        if (s == null) {
            s = codec.encode(handle);
            sealed = s;
        }
        return s;
    }

    @Override
    public String toString() {
        return "Receipt[checkpoint " + handle.checkpointId() + " #" + handle.index() + "]";
    }
}
