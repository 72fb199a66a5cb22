package io.junction.conformance.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the assembled broker ({@code junction.jar} as a child process, see {@link BrokerProcess}) for the annotated test
 * class: started and healthy before the first test, closed (output echoed, leak check) after the last. Tests get it as
 * a {@link RunningBroker} parameter of a constructor, {@code @BeforeAll}/{@code @BeforeEach} method or test method.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(BrokerExtension.class)
public @interface WithBroker {

    /** {@code key=value} settings passed as {@code --set}, on top of free ports for every listener. */
    String[] settings() default {};

    /** Extra JVM options of the broker process, e.g. {@code -Xmx256m}. */
    String[] jvmArgs() default {};

    /** Writes into the data directory before the broker first starts (users, topics); needs a no-arg constructor. */
    Class<? extends DataDirSeed> seed() default DataDirSeed.None.class;

    /** A fresh broker (new data directory) for every test method instead of one for the class. */
    boolean perTest() default false;
}
