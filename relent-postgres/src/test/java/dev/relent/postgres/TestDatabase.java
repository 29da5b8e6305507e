package dev.relent.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL the tests run against: 127.0.0.1:5432, database relent_test, role relent (password
 * relent), which scripts/services.sh starts and creates. A test that cannot reach it fails, saying
 * so; it never skips, since a skipped store test proves nothing.
 */
final class TestDatabase {

  static final String URL = "jdbc:postgresql://127.0.0.1:5432/relent_test";
  static final String USER = "relent";
  static final String PASSWORD = "relent";

  private static final AtomicInteger TABLES = new AtomicInteger();
  private static volatile String unreachable;
  private static volatile boolean checked;

  private TestDatabase() {}

  /** A DataSource that opens a new connection each time; fails the test if the server is down. */
  static DataSource dataSource() {
    requireReachable();
    return unchecked();
  }

  static PGSimpleDataSource unchecked() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(URL);
    ds.setUser(USER);
    ds.setPassword(PASSWORD);
    ds.setConnectTimeout(5);
    ds.setSocketTimeout(60);
    ds.setApplicationName("relent-postgres tests");
    return ds;
  }

  private static synchronized void requireReachable() {
    if (!checked) {
      try (Connection c = unchecked().getConnection()) {
        c.isValid(5);
      } catch (SQLException e) {
        unreachable = e.getMessage() + " (SQLSTATE " + e.getSQLState() + ")";
      }
      checked = true;
    }
    if (unreachable != null) {
      throw new AssertionError(
          "Cannot connect to PostgreSQL at "
              + URL
              + " as "
              + USER
              + ": "
              + unreachable
              + ". Run scripts/services.sh: it starts PostgreSQL and creates the role "
              + USER
              + " and the database relent_test.");
    }
  }

  /** A table name no other test of this run uses. */
  static String freshTable(String prefix) {
    return prefix + "_" + ProcessHandle.current().pid() + "_" + TABLES.incrementAndGet();
  }

  static void execute(String sql) {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new AssertionError(sql + ": " + e.getMessage(), e);
    }
  }

  static long count(String table, String where) {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM \"" + table + "\" WHERE " + where)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new AssertionError(e.getMessage(), e);
    }
  }

  static void drop(String table) {
    execute("DROP TABLE IF EXISTS \"" + table + "\"");
  }
}
