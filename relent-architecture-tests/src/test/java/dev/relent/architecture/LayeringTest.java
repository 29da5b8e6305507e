package dev.relent.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of the whole project, as rules that fail the build when code breaks them. Each rule
 * reads the compiled main classes of every module (tests excluded) and says, when it fails, which
 * class depends on which.
 *
 * <ul>
 *   <li>No package depends, directly or through others, on itself: no package cycle anywhere, but
 *       for the one between relent-core's API ({@code dev.relent}) and its executor ({@code
 *       dev.relent.internal.exec}), which make each other.
 *   <li>relent-core depends on the JDK alone, and knows no HTTP: no {@code java.net.http}, no
 *       HTTP-date or header code (those are relent-http's).
 *   <li>The HTTP adapters (OkHttp, Apache HttpClient 5) do not depend on each other, and the shared
 *       HTTP layer on neither.
 *   <li>The mock server shares no code with the client it tests: it never uses core or HTTP.
 *   <li>The simulator drives relent-core alone, on core's virtual time, and draws its reports with
 *       relent-charts: no test kit, no mock server.
 *   <li>The page and chart writers (relent-charts) depend on the JDK alone, so that the simulator
 *       and the CLI share them without depending on each other.
 *   <li>The PostgreSQL store uses plain JDBC and the idempotency store SPI: no driver class (so an
 *       application may bring any pgjdbc version, or a pool's wrappers), no handler internals.
 *   <li>Only relent-redis talks to Redis (Lettuce), and only the application, relent-cli ({@code
 *       relent batch --shared}), depends on it: a store is chosen by the application, never pulled
 *       in by a library module (core, HTTP and its adapters, idempotency, the test kit).
 *   <li>The meters (relent-micrometer) use relent-core's public API and Micrometer alone: no HTTP
 *       layer, no core internals.
 *   <li>The proxy (relent-proxy) is glue around relent-http's one attempt loop: it uses core, the
 *       HTTP layer, the meters, Micrometer and Netty, never another adapter, the mock server or a
 *       store (the application, relent-cli, wires Redis for {@code --shared}); and only relent-cli
 *       depends on it.
 *   <li>Only relent-opentelemetry uses OpenTelemetry, and the Spring Boot starter that wires it;
 *       both use the API alone, never the SDK (the application chooses that).
 *   <li>Only the Spring Boot starter uses Spring, and no module depends on the starter: the library
 *       works the same without Spring.
 *   <li>{@code dev.relent.spi} publishes store interfaces only.
 *   <li>relent-cli's packages are layers: the commands ({@code dev.relent.cli}) over the batch
 *       pipeline ({@code dev.relent.cli.batch}) over what every command shares ({@code
 *       dev.relent.cli.common}); only the batch's recorder writes its journal.
 *   <li>An {@code internal} package is used only by the module that owns it.
 *   <li>The cycle between core's API and its executor stays narrow: only the API's builders and
 *       factories (the executor's, the policy's, the backoff's) reach into the executor, the
 *       exceptions only for the give-up they are made from, and only the executor's builder
 *       implements its access to the API's package-private parts.
 *   <li>No public or protected signature of core's exported packages names an internal type: a user
 *       of the module sees none in the javadoc, and could not use one.
 *   <li>{@code dev.relent} is the API: every top-level class there is public.
 * </ul>
 */
class LayeringTest {
  /**
   * relent-core's packages: the API of the executor and policy, the guards, time, store SPIs,
   * internals (the executor itself and its guard chain among them).
   */
  private static final String[] CORE = {
    "dev.relent",
    "dev.relent.guard",
    "dev.relent.time",
    "dev.relent.spi",
    "dev.relent.internal",
    "dev.relent.internal.exec",
    "dev.relent.internal.chain"
  };

  /** The package of core's API; it and {@link #EXECUTOR} depend on each other. */
  private static final String API = "dev.relent";

  /** The package of the executor, which the API's builders make and which runs on the API. */
  private static final String EXECUTOR = "dev.relent.internal.exec";

  private static JavaClasses relent;

  @BeforeAll
  static void importMainClasses() {
    relent =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar"))
            .withImportOption(location -> !location.contains("/relent-architecture-tests/"))
            .importPackages("dev.relent");
  }

  /**
   * Each package is its own slice, so a cycle between any two packages is found; but the executor
   * counts as part of the API it implements, so that their cycle, and no other, is allowed. A cycle
   * through them and a third package is still found: the third package and their slice.
   */
  private static final SliceAssignment EACH_PACKAGE =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String name = javaClass.getPackageName();
          return SliceIdentifier.of(name.equals(EXECUTOR) ? API : name);
        }

        @Override
        public String getDescription() {
          return "every package of dev.relent, " + EXECUTOR + " counted as " + API;
        }
      };

  @Test
  void noPackageCycleInAnyModule() {
    slices().assignedFrom(EACH_PACKAGE).should().beFreeOfCycles().check(relent);
  }

  @Test
  void coreDependsOnTheJdkAlone() {
    classes()
        .that()
        .resideInAnyPackage(CORE)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(concat(CORE, "java.."))
        .check(relent);
  }

  @Test
  void coreKnowsNoHttp() {
    noClasses()
        .that()
        .resideInAnyPackage(CORE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.net.http..", "java.time.format..")
        .check(relent);
    noClasses()
        .that()
        .resideInAnyPackage(CORE)
        .should()
        .haveSimpleNameContaining("HttpDate")
        .orShould()
        .haveSimpleNameContaining("RetryAfter")
        .orShould()
        .haveSimpleNameContaining("Header")
        .check(relent);
  }

  @Test
  void adaptersDoNotDependOnEachOther() {
    noClasses()
        .that()
        .resideInAPackage("dev.relent.okhttp..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.relent.httpclient5..")
        .check(relent);
    noClasses()
        .that()
        .resideInAPackage("dev.relent.httpclient5..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.relent.okhttp..")
        .check(relent);
    noClasses()
        .that()
        .resideInAPackage("dev.relent.http..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.relent.okhttp..", "dev.relent.httpclient5..", "okhttp3..")
        .check(relent);
  }

  @Test
  void theMockServerSharesNoCodeWithTheClient() {
    noClasses()
        .that()
        .resideInAPackage("dev.relent.mockserver..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(concat(CORE, "dev.relent.http.."))
        .check(relent);
  }

  @Test
  void theSimulatorNeedsOnlyCoreAndTheCharts() {
    classes()
        .that()
        .resideInAPackage("dev.relent.sim..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            concat(concat(concat(CORE, "dev.relent.sim.."), "dev.relent.chart.."), "java.."))
        .check(relent);
  }

  @Test
  void theChartsDependOnTheJdkAlone() {
    classes()
        .that()
        .resideInAPackage("dev.relent.chart..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("dev.relent.chart..", "java..")
        .check(relent);
  }

  @Test
  void thePostgresStoreNeedsOnlyJdbcAndTheStoreSpi() {
    classes()
        .that()
        .resideInAPackage("dev.relent.postgres..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.relent.postgres..", "dev.relent.idempotency.spi", "java..", "javax.sql..")
        .check(relent);
  }

  @Test
  void onlyTheRedisModuleTalksToRedis() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.relent.redis..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.lettuce..")
        .check(relent);
  }

  @Test
  void onlyTheTracingModuleUsesOpenTelemetry() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.relent.opentelemetry..", "dev.relent.spring..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.opentelemetry..")
        .check(relent);
  }

  @Test
  void onlyTheStarterUsesSpringAndNothingDependsOnIt() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.relent.spring..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.springframework..", "dev.relent.spring..")
        .check(relent);
  }

  @Test
  void theTracingModuleUsesTheOpenTelemetryApiOnly() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.relent.opentelemetry..", "dev.relent.spring..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.opentelemetry.sdk..")
        .check(relent);
  }

  @Test
  void onlyTheApplicationDependsOnTheRedisModule() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.relent.redis..", "dev.relent.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.relent.redis..")
        .check(relent);
  }

  @Test
  void theMetersNeedOnlyCoreAndMicrometer() {
    classes()
        .that()
        .resideInAPackage("dev.relent.micrometer..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.relent.micrometer..",
            "dev.relent",
            "dev.relent.guard",
            "io.micrometer..",
            "java..")
        .check(relent);
  }

  @Test
  void theProxyIsGlueAroundTheHttpLoop() {
    classes()
        .that()
        .resideInAPackage("dev.relent.proxy..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            concat(
                CORE,
                "dev.relent.proxy..",
                "dev.relent.http",
                "dev.relent.http.adapter",
                "dev.relent.micrometer..",
                "io.micrometer..",
                "io.netty..",
                "org.slf4j..",
                "java..",
                "javax.net.ssl.."))
        .check(relent);
  }

  @Test
  void onlyTheCliDependsOnTheProxy() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.relent.proxy..", "dev.relent.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.relent.proxy..")
        .check(relent);
  }

  @Test
  void theCliIsLayeredCommandsOverTheBatchOverWhatTheyShare() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.relent.cli.batch", "dev.relent.cli.common")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.relent.cli")
        .check(relent);
    noClasses()
        .that()
        .resideInAPackage("dev.relent.cli.common")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.relent.cli.batch")
        .check(relent);
  }

  /** The journal's writing methods: every record of a batch run goes through its recorder. */
  private static final Set<String> JOURNAL_WRITES =
      Set.of(
          "append",
          "key",
          "unkeyed",
          "runStarted",
          "outcome",
          "outcomeQueued",
          "flush",
          "runEnded",
          "copyFinished");

  @Test
  void onlyTheRecorderWritesTheBatchJournal() {
    noClasses()
        .that()
        .resideInAPackage("dev.relent.cli..")
        .and()
        .doNotHaveSimpleName("BatchRecorder")
        .and()
        .doNotHaveSimpleName("BatchJournal")
        .should()
        .callMethodWhere(
            DescribedPredicate.describe(
                "a method that writes the batch journal",
                call ->
                    call.getTargetOwner().getName().equals("dev.relent.cli.batch.BatchJournal")
                        && JOURNAL_WRITES.contains(call.getName())))
        .check(relent);
  }

  @Test
  void spiHoldsOnlyStoreInterfaces() {
    classes()
        .that()
        .resideInAPackage("dev.relent.spi")
        .and()
        .arePublic()
        .and()
        .areTopLevelClasses()
        .should()
        .beInterfaces()
        .check(relent);
  }

  @Test
  void implementationClassesOfCoreAreNotPublic() {
    classes()
        .that()
        .resideInAnyPackage("dev.relent", "dev.relent.guard", "dev.relent.time", "dev.relent.spi")
        .and()
        .haveSimpleNameEndingWith("Impl")
        .should()
        .notBePublic()
        .check(relent);
  }

  @Test
  void internalsStayInsideTheirModule() {
    noClasses()
        .that()
        .resideOutsideOfPackages(CORE)
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.relent.internal..")
        .check(relent);
    for (String module :
        new String[] {"http", "sim", "mockserver", "idempotency", "postgres", "cli"}) {
      String root = "dev.relent." + module + "..";
      noClasses()
          .that()
          .resideOutsideOfPackage(root)
          .should()
          .dependOnClassesThat(internalOf(module))
          .check(relent);
    }
  }

  /**
   * The classes of {@code dev.relent} that make the executor's internals, each with its nested
   * classes: the executor's builder, the policy's, and the backoff's.
   */
  private static final Set<String> API_FACTORIES =
      Set.of("dev.relent.RelentExecutor", "dev.relent.RetryPolicy", "dev.relent.Backoff");

  /** core's exported packages (module-info), whose public signatures are its API. */
  private static final String[] EXPORTED = {
    "dev.relent", "dev.relent.guard", "dev.relent.time", "dev.relent.spi"
  };

  @Test
  void onlyTheApisFactoriesReachIntoTheExecutor() {
    noClasses()
        .that()
        .resideInAPackage(API)
        .and(DescribedPredicate.not(nestedInAny(API_FACTORIES)))
        .and()
        .areNotAssignableTo("dev.relent.RelentException")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(EXECUTOR)
        .because("only the builders and factories of the API make the executor's internals")
        .check(relent);
  }

  @Test
  void theExceptionsKnowOnlyTheGiveUpTheyAreMadeFrom() {
    noClasses()
        .that()
        .areAssignableTo("dev.relent.RelentException")
        .should()
        .dependOnClassesThat(
            DescribedPredicate.describe(
                "reside in " + EXECUTOR + " and are not its GiveUp",
                c ->
                    c.getPackageName().equals(EXECUTOR)
                        && !c.getName().equals(EXECUTOR + ".GiveUp")))
        .because("an exception is made from the give-up the executor hands over, and from nothing")
        .check(relent);
  }

  @Test
  void onlyTheExecutorsBuilderHandsOutTheApisPackagePrivateParts() {
    classes()
        .that()
        .implement(EXECUTOR + ".ApiAccess")
        .should()
        .haveFullyQualifiedName("dev.relent.RelentExecutor$Builder$Access")
        .because("only the executor's builder hands out the API's package-private parts")
        .check(relent);
  }

  @Test
  void noPublicSignatureOfTheApiNamesAnInternalType() {
    classes()
        .that()
        .resideInAnyPackage(EXPORTED)
        .and(visibleToUsers())
        .should(exposeNoInternalType())
        .check(relent);
  }

  @Test
  void theRootPackageHoldsTheApiAlone() {
    classes()
        .that()
        .resideInAPackage(API)
        .and()
        .areTopLevelClasses()
        .and()
        .doNotHaveSimpleName("package-info")
        .should()
        .bePublic()
        .because("the executor's internals live in " + EXECUTOR)
        .check(relent);
  }

  /** Classes named in {@code names}, or nested in one of them at any depth. */
  private static DescribedPredicate<JavaClass> nestedInAny(Set<String> names) {
    return DescribedPredicate.describe("belong to one of " + names, c -> belongsTo(c, names));
  }

  private static boolean belongsTo(JavaClass c, Set<String> names) {
    return names.contains(c.getName())
        || c.getEnclosingClass().map(e -> belongsTo(e, names)).orElse(false);
  }

  /** Public or protected, and so is every class it is nested in. */
  private static DescribedPredicate<JavaClass> visibleToUsers() {
    return DescribedPredicate.describe(
        "are public or protected, and so is every class they are nested in", LayeringTest::visible);
  }

  private static boolean visible(JavaClass c) {
    Set<JavaModifier> m = c.getModifiers();
    if (!m.contains(JavaModifier.PUBLIC) && !m.contains(JavaModifier.PROTECTED)) {
      return false;
    }
    return c.getEnclosingClass().map(LayeringTest::visible).orElse(true);
  }

  /**
   * Names no type of {@code dev.relent.internal..} in what a user sees: the supertypes, and the
   * types (with their type arguments) of every public or protected field, constructor and method,
   * its parameters and what it throws.
   */
  private static ArchCondition<JavaClass> exposeNoInternalType() {
    return new ArchCondition<>("expose no type of dev.relent.internal.. in a public signature") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        List<JavaType> supertypes = new ArrayList<>(c.getInterfaces());
        c.getSuperclass().ifPresent(supertypes::add);
        for (JavaType t : supertypes) {
          report(c, c.getName() + " extends or implements", t, events);
        }
        for (JavaField f : c.getFields()) {
          if (seen(f.getModifiers())) {
            report(c, f.getFullName(), f.getType(), events);
          }
        }
        for (JavaCodeUnit u : c.getCodeUnits()) {
          if (!seen(u.getModifiers()) || u.getModifiers().contains(JavaModifier.SYNTHETIC)) {
            continue;
          }
          report(c, u.getFullName() + " returns", u.getReturnType(), events);
          for (JavaType p : u.getParameterTypes()) {
            report(c, u.getFullName() + " takes", p, events);
          }
          for (JavaClass t : u.getThrowsClause().getTypes()) {
            report(c, u.getFullName() + " throws", t, events);
          }
        }
      }

      private void report(JavaClass owner, String where, JavaType type, ConditionEvents events) {
        for (JavaClass raw : type.getAllInvolvedRawTypes()) {
          if (raw.getPackageName().startsWith("dev.relent.internal")) {
            events.add(
                SimpleConditionEvent.violated(owner, where + " " + raw.getName() + ", internal"));
          }
        }
      }
    };
  }

  private static boolean seen(Set<JavaModifier> modifiers) {
    return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
  }

  private static DescribedPredicate<JavaClass> internalOf(String module) {
    String prefix = "dev.relent." + module + ".";
    return DescribedPredicate.describe(
        "reside in an internal package of " + prefix + "*",
        c ->
            c.getPackageName().startsWith(prefix)
                && (c.getPackageName().endsWith(".internal")
                    || c.getPackageName().contains(".internal.")));
  }

  private static String[] concat(String[] packages, String... more) {
    String[] all = new String[packages.length + more.length];
    System.arraycopy(packages, 0, all, 0, packages.length);
    System.arraycopy(more, 0, all, packages.length, more.length);
    return all;
  }
}
