package io.junction.spi.http;

/** A registered prefix; closing it unregisters the route (requests already dispatched still complete). */
public interface HttpRoute extends AutoCloseable {

    String prefix();

    @Override
    void close();
}
