package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What an application gets with the starter alone, read from the starter's pom (the module's own
 * tests see its optional dependencies too, so they cannot tell): relent-micrometer comes with it,
 * so that an application with the actuator has Relent's meters without asking; Micrometer does not,
 * so that an application without it gains no metrics library.
 */
class StarterDependenciesTest {

  @Test
  void relentMicrometerComesWithTheStarterAndMicrometerDoesNot() throws Exception {
    Document pom =
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new File("pom.xml"));
    Element project = pom.getDocumentElement();
    Element dependencies = child(project, "dependencies");

    Element meters = dependency(dependencies, "relent-micrometer");
    assertThat(text(meters, "optional")).as("relent-micrometer's <optional>").isNotEqualTo("true");
    assertThat(text(meters, "scope")).as("relent-micrometer's <scope>").isIn("", "compile");
    List<String> excluded = new ArrayList<>();
    Element exclusions = child(meters, "exclusions");
    if (exclusions != null) {
      for (Element e : children(exclusions, "exclusion")) {
        excluded.add(text(e, "groupId") + ":" + text(e, "artifactId"));
      }
    }
    assertThat(excluded).contains("io.micrometer:micrometer-core");
    assertThat(text(dependency(dependencies, "micrometer-core"), "optional")).isEqualTo("true");
  }

  private static Element dependency(Element dependencies, String artifactId) {
    for (Element d : children(dependencies, "dependency")) {
      if (artifactId.equals(text(d, "artifactId"))) {
        return d;
      }
    }
    throw new AssertionError("the starter's pom has no dependency " + artifactId);
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i) instanceof Element && nodes.item(i).getNodeName().equals(name)) {
        found.add((Element) nodes.item(i));
      }
    }
    return found;
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? "" : e.getTextContent().trim();
  }
}
