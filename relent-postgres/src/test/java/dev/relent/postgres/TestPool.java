package dev.relent.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A fixed pool of open connections, as an application's pool would hand the store, so that the
 * concurrency tests measure the store and not the opening of a connection per statement. close() on
 * a handed-out connection gives it back.
 */
final class TestPool implements DataSource, AutoCloseable {

  private final List<Connection> all = new ArrayList<>();
  private final BlockingQueue<Connection> idle;

  TestPool(DataSource source, int size) throws SQLException {
    idle = new ArrayBlockingQueue<>(size);
    for (int i = 0; i < size; i++) {
      Connection c = source.getConnection();
      all.add(c);
      idle.add(c);
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    Connection physical;
    try {
      physical = idle.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting for a connection", "08001", e);
    }
    AtomicBoolean closed = new AtomicBoolean();
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "close":
                  if (closed.compareAndSet(false, true)) {
                    if (!physical.getAutoCommit()) {
                      physical.rollback();
                      physical.setAutoCommit(true);
                    }
                    idle.add(physical);
                  }
                  return null;
                case "isClosed":
                  return closed.get();
                default:
                  if (closed.get()) {
                    throw new SQLException("connection is closed", "08003");
                  }
                  try {
                    return method.invoke(physical, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
              }
            });
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("the pool has one user");
  }

  @Override
  public void close() throws SQLException {
    for (Connection c : all) {
      c.close();
    }
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
