package dev.relent.chart;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A minimal PNG reader for the screenshots Chromium writes: 8-bit RGB or RGBA, not interlaced. Its
 * own code so that the test needs nothing beyond {@code java.base} (no {@code java.desktop}). In
 * relent-charts' test-jar, for the report tests of relent-sim and relent-cli too.
 */
public record Png(int width, int height, int[] pixels) {
  private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  /** The pixel at (x, y) as 0xRRGGBB. */
  public int rgb(int x, int y) {
    return pixels[y * width + x];
  }

  /** Reads a PNG file. */
  public static Png read(Path file) throws IOException {
    ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file));
    byte[] signature = new byte[8];
    in.get(signature);
    if (!Arrays.equals(signature, SIGNATURE)) {
      throw new IOException("not a PNG: " + file);
    }
    int width = 0;
    int height = 0;
    int channels = 0;
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    while (in.remaining() >= 12) {
      int length = in.getInt();
      byte[] type = new byte[4];
      in.get(type);
      byte[] chunk = new byte[length];
      in.get(chunk);
      in.getInt(); // CRC
      String name = new String(type, java.nio.charset.StandardCharsets.US_ASCII);
      if (name.equals("IHDR")) {
        ByteBuffer h = ByteBuffer.wrap(chunk);
        width = h.getInt();
        height = h.getInt();
        int depth = h.get();
        int color = h.get();
        h.get();
        h.get();
        int interlace = h.get();
        if (depth != 8 || (color != 2 && color != 6) || interlace != 0) {
          throw new IOException(
              "unsupported PNG: depth " + depth + ", color " + color + ", interlace " + interlace);
        }
        channels = color == 6 ? 4 : 3;
      } else if (name.equals("IDAT")) {
        data.write(chunk);
      } else if (name.equals("IEND")) {
        break;
      }
    }
    int stride = width * channels;
    byte[] raw = inflate(data.toByteArray(), (stride + 1) * height);
    int[] pixels = new int[width * height];
    byte[] previous = new byte[stride];
    byte[] line = new byte[stride];
    for (int y = 0; y < height; y++) {
      int filter = raw[y * (stride + 1)];
      System.arraycopy(raw, y * (stride + 1) + 1, line, 0, stride);
      for (int i = 0; i < stride; i++) {
        int a = i >= channels ? line[i - channels] & 0xff : 0;
        int b = previous[i] & 0xff;
        int c = i >= channels ? previous[i - channels] & 0xff : 0;
        int x = line[i] & 0xff;
        int v =
            switch (filter) {
              case 0 -> x;
              case 1 -> x + a;
              case 2 -> x + b;
              case 3 -> x + ((a + b) >>> 1);
              case 4 -> x + paeth(a, b, c);
              default -> throw new IOException("bad PNG filter " + filter + " in row " + y);
            };
        line[i] = (byte) v;
      }
      for (int px = 0; px < width; px++) {
        int o = px * channels;
        pixels[y * width + px] =
            ((line[o] & 0xff) << 16) | ((line[o + 1] & 0xff) << 8) | (line[o + 2] & 0xff);
      }
      byte[] t = previous;
      previous = line;
      line = t;
    }
    return new Png(width, height, pixels);
  }

  private static int paeth(int a, int b, int c) {
    int p = a + b - c;
    int pa = Math.abs(p - a);
    int pb = Math.abs(p - b);
    int pc = Math.abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
  }

  private static byte[] inflate(byte[] compressed, int size) throws IOException {
    Inflater inflater = new Inflater();
    inflater.setInput(compressed);
    byte[] out = new byte[size];
    int n = 0;
    try {
      while (n < size && !inflater.finished()) {
        int got = inflater.inflate(out, n, size - n);
        if (got == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          break;
        }
        n += got;
      }
    } catch (DataFormatException e) {
      throw new IOException("corrupt PNG data", e);
    } finally {
      inflater.end();
    }
    if (n != size) {
      throw new IOException("PNG data too short: " + n + " of " + size + " bytes");
    }
    return out;
  }
}
