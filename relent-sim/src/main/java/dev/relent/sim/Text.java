package dev.relent.sim;

import java.util.ArrayList;
import java.util.List;

/** Aligned text tables for the terminal: first column left, the others right. */
final class Text {
  private Text() {}

  static String table(List<String> header, List<List<String>> rows) {
    int[] width = new int[header.size()];
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        String cell = row.get(i);
        String pad = " ".repeat(width[i] - cell.length());
        if (i == 0) {
          line.append(cell).append(pad);
        } else {
          line.append("  ").append(pad).append(cell);
        }
      }
      sb.append(line.toString().stripTrailing()).append('\n');
    }
    return sb.toString();
  }
}
