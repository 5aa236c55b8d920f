# Shared data: a project that uses what a platform SDK made, which no
# project owns (issue 10, data sources). Seed A mounts the build cache
# by name (mount_volume("build-cache", "/cache")) and evaluates on a
# dataset uploaded elsewhere; here both are data sources, resolved and
# pinned when planning. README.md says how to make them first.

project = "nightly-evals"

data "volume" "cache" {
  name = "build-cache"
}

data "dataset" "evals" {
  name = "build-evals"
}

data "secret" "openai" {
  name = "openai"
}

# A scorer deployed by another tool (seed A RemoteFunction.from_name):
# its current version when planning, pinned.
data "function" "brand" {
  name = "brand-check"
}

image "app" {
  from = "python:3.12-slim"

  pip { packages = ["requests==2.32.3"] }
  copy {
    src = "src"
    dst = "/app/src"
  }
  workdir { path = "/app" }
}

sandbox "builder" {
  image    = image.app
  command  = ["sleep", "infinity"]
  env_from = [data.secret.openai]
  volume_mount {
    volume = data.volume.cache
    path   = "/cache"
  }
}

function "rank" {
  image = image.app
  source {
    paths = ["src"]
  }
  handler  = "src.rank:run"
  env_from = [data.secret.openai]
}

# A suite groups evaluations; an evaluation refers to one (issue 11).
suite "nightly" {
  title = "Nightly"
}

evaluation "nightly" {
  title   = "Nightly ranking"
  suite   = suite.nightly
  dataset = data.dataset.evals
  task    = function.rank
  scorer "exact_match" {
    case_insensitive = true
  }
  scorer "function" {
    function = data.function.brand
  }
}
