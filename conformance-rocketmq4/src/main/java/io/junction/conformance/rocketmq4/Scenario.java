package io.junction.conformance.rocketmq4;

/** One thing the driver plays against the broker, reporting through {@link Events}. */
interface Scenario {

    /** The name the command line and the event lines use. */
    String name();

    /** Runs to the end or throws; must give up by the context's deadline. */
    void run(DriverContext context) throws Exception;
}
