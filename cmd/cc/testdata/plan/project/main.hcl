# The project of the golden plan tests (cmd/cc/golden_test.go): the
# quickstart's support bot, frozen here so that the goldens change only
# when plans do.

project = "support-bot"

image "app" {
  from = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"

  apt { packages = ["git", "curl"] }
  pip { packages = ["requests==2.32.3", "numpy"] }
  copy {
    src = "src"
    dst = "/app/src"
  }
  workdir { path = "/app" }

  cmd = ["python", "-m", "src.support"]
}

secret "openai" {
  from_env = "OPENAI_API_KEY"
}

sandbox "dev" {
  image   = image.app
  command = ["sleep", "infinity"]
  env = {
    OPENAI_API_KEY = secret.openai
    LOG_LEVEL      = "debug"
  }
  lifetime = "2h"
}

function "support-answer" {
  image = image.app
  source { paths = ["src"] }
  handler  = "src.support:answer"
  env_from = [secret.openai]
}

dataset "goldens" {
  files = ["data/goldens.csv"]
}

evaluation "support-quality" {
  dataset = dataset.goldens
  task    = function.support-answer

  scorer "exact_match" {
    inputs = ["output", "expected"]
  }
}
