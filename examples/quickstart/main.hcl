# The quickstart: a support bot. One image, one secret, a sandbox to work
# in, the bot as a function, and an evaluation of it on a golden dataset.

project = "support-bot"

image "app" {
  from = "python:3.12-slim"

  apt { packages = ["git", "curl"] }
  pip { packages = ["requests==2.32.3", "openai==1.51.0"] }
  copy {
    src = "src"
    dst = "/app/src"
  }
  env {
    vars = {
      PYTHONUNBUFFERED = "1"
      APP_HOME         = "/app"
    }
  }
  workdir { path = "/app" }

  entrypoint = ["python", "-m"]
  cmd        = ["src.support"]
}

secret "openai" {
  from_env = "OPENAI_API_KEY"
}

sandbox "dev" {
  image   = image.app
  command = ["sleep", "infinity"]
  resources {
    requests {
      cpu    = "1"
      memory = "2Gi"
    }
  }
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
    inputs           = ["output", "expected"]
    case_insensitive = true
  }
  scorer "levenshtein" {
    inputs = ["output", "expected"]
  }
  scorer "llm_judge" {
    name         = "helpfulness"
    model        = "gpt-5"
    instructions = "Grade how well the answer resolves the customer's question."
    inputs       = ["input", "output"]
    field {
      name        = "score"
      type        = "float"
      range       = [0, 1]
      description = "Overall helpfulness."
    }
    field {
      name = "reason"
      type = "string"
    }
  }
}
