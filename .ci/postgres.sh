# Sourced by .ci/run: a PostgreSQL server for the shared-store tests (test/postgres/), exported as
# WAYPOINT_TEST_POSTGRES_URL. A URL already set is used as it is; otherwise the local cluster is
# started, Debian's postgresql package installed first when there is none, and a role and a
# database for the tests created (the role may create roles: the read-only-role test makes one).
if [ -z "${WAYPOINT_TEST_POSTGRES_URL:-}" ]; then
  if ! command -v pg_lsclusters >/dev/null 2>&1 || [ -z "$(pg_lsclusters -h 2>/dev/null)" ]; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
  fi
  read -r pg_version pg_cluster pg_port pg_status _ <<<"$(pg_lsclusters -h | head -1)"
  [ "$pg_status" = online ] || pg_ctlcluster "$pg_version" "$pg_cluster" start
  as_postgres() { su postgres -c "$1"; }
  as_postgres "psql -p $pg_port -v ON_ERROR_STOP=1 -qc \"DO \\\$\\\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'waypoint_test') THEN CREATE ROLE waypoint_test LOGIN PASSWORD 'waypoint_test' CREATEDB CREATEROLE; END IF; END\\\$\\\$\""
  as_postgres "psql -p $pg_port -tAc \"SELECT 1 FROM pg_database WHERE datname = 'waypoint_test'\"" | grep -q 1 ||
    as_postgres "createdb -p $pg_port -O waypoint_test waypoint_test"
  export WAYPOINT_TEST_POSTGRES_URL="postgres://waypoint_test:waypoint_test@127.0.0.1:$pg_port/waypoint_test"
  # The fault tests restart this cluster (pg_ctlcluster <version> <name> restart).
  export WAYPOINT_TEST_POSTGRES_CLUSTER="$pg_version $pg_cluster"
fi
echo "PostgreSQL for the tests: ${WAYPOINT_TEST_POSTGRES_URL//:waypoint_test@/:***@}"
