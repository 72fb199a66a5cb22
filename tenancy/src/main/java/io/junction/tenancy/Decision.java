package io.junction.tenancy;

/** An authorization's answer. */
public enum Decision {
    ALLOW,
    DENY;

    public boolean allowed() {
        return this == ALLOW;
    }
}
