# The platform tour: every kind and every field group of both platform
# SDK documents (shared/reference), in one project. main.cue is the same
# project in CUE: both compile to byte-identical desired state. Apply it
# with OPENAI_API_KEY set; the other language then plans "No changes".

project = "platform-tour"

# ---- images, secrets, volumes, datasets ------------------------------------

image "app" {
  from = "python:3.12-slim"

  pip { packages = ["pydantic==2.9.2", "requests==2.32.3"] }
  copy {
    src  = "src"
    dst  = "/app/src"
    mode = "0644"
  }
  run { commands = ["python -m compileall -q /app/src"] }
  workdir { path = "/app" }
}

# From a Dockerfile of the project (seed A Image.from_dockerfile).
image "custom" {
  from_dockerfile = "docker/Dockerfile"
}

secret "openai" {
  from_env = "OPENAI_API_KEY"
}

# Keys of a platform integration.
secret "slack" {
  from_integration {
    name = "slack"
    keys = ["SLACK_BOT_TOKEN"]
  }
}

volume "cache" {
  size = "10Gi"
}

# Seed A uploads "support_goldens": the platform's name, not the address.
dataset "goldens" {
  name   = "support_goldens"
  files  = ["data/goldens.csv"]
  format = "csv"
}

function "answer" {
  image = image.app
  source {
    paths   = ["src"]
    include = ["**/*.py"]
  }
  handler         = "app.main:answer"
  env_from        = [secret.openai]
  version_trigger = "openai key rotated 2026-12-01"
}

# A sandbox from the Dockerfile image, restoring a snapshot, with bulk
# secrets kept by the service and an integration.
sandbox "dev" {
  image    = image.custom
  command  = ["sleep", "infinity"]
  env_from = [secret.hf, secret.slack]
  snapshot {
    mount_path   = "/work"
    restore_from = "snap-tour-1"
  }
  network {
    egress_mode = "none"
  }
}

# Tasks deployed elsewhere: by name (its current version pinned) and by
# immutable version id.
evaluation "by-name" {
  dataset = dataset.goldens
  external_task {
    name = "support-answer"
  }
  scorer "exact_match" {
    trim = false
  }
}

evaluation "by-version" {
  dataset = dataset.goldens
  external_task {
    version_id = "fn_support_v3"
  }
  scorer "levenshtein" {}
}

# ---- Helper I (issue 11: image shorthands): the built-in images and the image
# string shorthand.

# Seed A "Declarative images": Image.debian_slim().pip_install([...]).
image "slim" {
  from = image.debian_slim
  pip { packages = ["requests"] }
}

# Seed A "Add tmux to a sandbox image": Image.sandbox().apt_install(["tmux"]).
image "tmux" {
  from = image.sandbox
  apt { packages = ["tmux"] }
}

# Seed A "Git inside a sandbox": omitting image runs Image.sandbox().
sandbox "git" {}

sandbox "tmux" {
  image = image.tmux
}

# A registry reference string is an image with only that base.
sandbox "ubuntu" {
  image = "ubuntu:latest"
}

function "shorthand" {
  image   = "python:3.13-slim"
  handler = "app.main:answer"
  source { paths = ["src"] }
}

# ---- Helper F (issue 11): the sandbox's new fields, functions' field groups,
# a function class.
sandbox "agent" {
  image         = image.app
  entrypoint    = ["sleep", "infinity"]
  compute_class = "host"
  port {
    container_port = 8080
    host_port      = 80
  }
  port {
    container_port = 5353
    protocol       = "udp"
  }
  s3_mount {
    bucket      = "tour-data"
    prefix      = "runs/"
    mount_path  = "/mnt/s3"
    read_only   = true
    credentials = secret.openai
  }
  snapshot { mount_path = "/workspace" }
  max_timeout = "10m"
  runners     = ["runner-1"]
  profiles    = ["cpu-small"]
  temp_dir    = "/scratch"
  stop {
    grace_period     = "30s"
    snapshot_on_stop = true
  }
}
sandbox "worker" {
  image = image.app
  args  = ["--serve"]
}
function "provision-agent" {
  image       = image.app
  source { paths = ["src"] }
  handler     = "app.main:provision"
  description = "provisions an agent sandbox"
  identity    = true
  network {
    egress_allow = ["api.openai.com"]
  }
  mounted_file {
    src  = "data/goldens.csv"
    path = "/etc/goldens.csv"
  }
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.openai
  }
  # The advanced sandbox options a function takes too (seed B).
  port { container_port = 8000 }
  s3_mount {
    bucket      = "tour-data"
    mount_path  = "/mnt/s3"
    read_only   = true
    credentials = secret.openai
  }
  snapshot { mount_path = "/state" }
  tags          = ["tour"]
  annotations   = { owner = "platform" }
  profiles      = ["cpu-small"]
  compute_class = "host"
}
function "ranker" {
  image   = image.app
  source { paths = ["src"] }
  handler = "app.rank:Ranker"
  methods = ["rank", "score"]
}

# ---- Helper D (issue 11): shared defaults. A project-wide default for
# sandboxes (tags merged into every sandbox of the tour), a named set for
# sandboxes and one for functions, opted into with use_defaults.
defaults {
  sandbox {
    tags        = ["platform-tour"]
    annotations = { "tour.cc.dev/owner" = "platform" }
  }
}

defaults "gpu" {
  sandbox {
    image = image.app
    env   = { LOG_LEVEL = "info", CUDA_VISIBLE_DEVICES = "0" }
    resources {
      gpu {
        count = 1
      }
    }
    network {
      egress_mode  = "allowlist"
      egress_allow = ["pypi.org"]
    }
    tags     = ["gpu"]
    lifetime = "4h"
  }
}

defaults "quick" {
  function {
    image   = image.app
    timeout = "30s"
    env     = { LOG_LEVEL = "info" }
  }
}

sandbox "trainer" {
  use_defaults = ["gpu"]
  tags         = ["trainer", "gpu"]
  env          = { LOG_LEVEL = "debug" }
  annotations  = { "tour.cc.dev/purpose" = "training" }
  network {
    egress_mode = "none"
  }
}

function "quick-answer" {
  use_defaults = ["quick"]
  source {
    paths = ["src"]
  }
  handler = "app.main:answer"
  retries = 1
}

# ---- Helper K (issue 11): the container and training kinds. A training takes
# only secrets the service holds, so it uses secret.hf (from_service),
# never secret.openai (from_env).
secret "hf" {
  from_service = "hf-token"
  env_var      = "HF_TOKEN"
}

# Seed A Container: one long-running service from an image.
container "web" {
  image   = image.app
  command = ["python", "-m", "http.server", "8080"]
  resources {
    requests {
      cpu    = "500m"
      memory = "1Gi"
    }
    limits {
      cpu    = "1"
      memory = "2Gi"
    }
  }
  env = {
    LOG_LEVEL      = "info"
    OPENAI_API_KEY = secret.openai
  }
  env_from = [secret.hf]
  port { port = 8080 }
  port {
    port     = 5353
    protocol = "udp"
  }
  health_check {
    http_path         = "/healthz"
    port              = 8080
    interval          = "15s"
    timeout           = "2s"
    failure_threshold = 5
  }
  restart_policy = "on_failure"
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.openai
  }
  network {
    ingress_mode  = "public"
    exposed_ports = [8080]
    egress_allow  = ["api.openai.com"]
  }
  volume_mount {
    volume    = volume.cache
    path      = "/cache"
    read_only = true
  }
  mounted_file {
    src  = "data/goldens.csv"
    path = "/etc/goldens.csv"
    mode = "0444"
  }
  tags        = ["serving"]
  annotations = { owner = "ml-team" }
  identity    = true
  lifecycle {
    create_before_destroy = true
  }
}

# A container probed by a command, restarted never.
container "worker" {
  image   = image.app
  command = ["python", "-m", "worker"]
  health_check {
    command = ["python", "-c", "print('ok')"]
  }
  restart_policy = "never"
}

# Seed A @cc.training: GPUs, a dataset and a volume mounted, service-side
# secrets only.
training "finetune" {
  image   = image.app
  command = ["python", "-m", "train", "--epochs=3"]
  resources {
    requests {
      cpu    = "8"
      memory = "32Gi"
    }
    gpu {
      count = 2
      type  = "a100"
    }
  }
  dataset_mount {
    dataset = dataset.goldens
    path    = "/data/goldens"
  }
  volume_mount {
    volume = volume.cache
    path   = "/checkpoints"
  }
  env = {
    EPOCHS            = "3"
    HUGGINGFACE_TOKEN = secret.hf
  }
  env_from = [secret.hf]
  lifecycle {
    prevent_destroy = true
  }
}

# ---- SG (issue 11: scaling groups): a scaling group using every field.
scaling_group "api" {
  image   = image.app
  command = ["python", "-m", "app.serve", "--port", "8080"]
  resources {
    requests {
      cpu    = "500m"
      memory = "512Mi"
    }
    limits {
      cpu    = "2"
      memory = "2Gi"
    }
    gpu {
      count = 1
      type  = "nvidia-l4"
    }
  }
  replicas {
    min                = 2
    max                = 8
    target_concurrency = 20
  }
  env = {
    LOG_LEVEL  = "info"
    OPENAI_KEY = secret.openai
  }
  env_from = [secret.openai]
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.openai
  }
  network {
    ingress_mode  = "public"
    exposed_ports = [8080]
    egress_allow  = ["api.openai.com", "*.slack.com"]
  }
  ports = [8080, 9090]
  volume_mount {
    volume    = volume.cache
    path      = "/cache"
    read_only = true
  }
  identity    = true
  tags        = ["team:platform", "tier:api"]
  annotations = { owner = "platform" }
  lifecycle {
    create_before_destroy = true
  }
}

# ---- Helper E (issue 11): suites, evaluations, datasets. The lead may also
# give dataset "goldens" its platform name: name = "support_goldens".
suite "release" {
  title       = "Release"
  description = "Evaluations that gate a release."
}

# A glob (fileset() gives the same), expanded in sorted order; a platform
# name unlike the address.
dataset "tickets" {
  name        = "support_tickets"
  files       = fileset(".", "data/*.csv")
  description = "Every CSV under data/."
}
# Small inline tables, by row and by column (the same table).
dataset "capitals" {
  rows = [
    { input = "France", expected = "Paris" },
    { input = "Japan", expected = "Tokyo" },
  ]
}
dataset "capitals-by-column" {
  columns = {
    input    = ["France", "Japan"]
    expected = ["Paris", "Tokyo"]
  }
}

evaluation "support" {
  title    = "Customer Support Chatbot"
  suite    = suite.release
  dataset  = dataset.tickets
  task     = function.answer
  metadata = { team = "support" }

  scorer "exact_match" {
    inputs              = ["output", "expected"]
    case_insensitive    = true
    collapse_whitespace = true
  }
  scorer "levenshtein" {
    inputs = ["output", "expected"]
  }
  scorer "regex_match" {
    inputs     = ["output"]
    pattern    = "(?i)thank"
    full_match = false
  }
  scorer "contains" {
    inputs = ["output", "expected"]
    mode   = "fraction"
  }
  scorer "numeric_close" {
    inputs  = ["output", "expected"]
    abs_tol = 0.5
    rel_tol = 0.1
    graded  = true
  }
  scorer "string_similarity" {
    inputs = ["output", "expected"]
    method = "jaro_winkler"
  }
  scorer "json_valid" {
    inputs = ["output"]
  }
  scorer "json_match" {
    inputs = ["output", "expected"]
    paths  = ["answer.text"]
  }
  scorer "embedding_similarity" {
    inputs = ["output", "expected"]
    model  = "text-embedding-3-small"
  }
  scorer "function" {
    function = function.answer
    scores   = ["relevance", "tone"]
  }
  scorer "external_function" {
    version_id = "fn_brand_alignment_v2"
  }
  scorer "external_function" {
    name   = "brand-voice"
    scores = ["voice"]
  }
  scorer "llm_judge" {
    name         = "trace-quality"
    model        = "gpt-5"
    instructions = "You are grading a support answer."
    inputs       = ["input", "output"]
    prompt       = "Question: {{input}}\nAnswer: {{ output }}\nGrade the answer."
    parse        = "json"
    api_key      = secret.openai
    base_url     = "https://api.openai.com/v1"
    field {
      name        = "score"
      type        = "float"
      range       = [0, 1]
      description = "Overall quality."
    }
    field {
      name  = "directness"
      type  = "int"
      range = [0, 2]
    }
    field {
      name   = "verdict"
      type   = "enum"
      values = ["pass", "fail"]
    }
    field {
      name = "resolved"
      type = "bool"
    }
    field {
      name = "reason"
      type = "string"
    }
    field {
      name = "issues"
      type = "list"
      items { type = "string" }
    }
    field {
      name = "detail"
      type = "object"
      field {
        name  = "tone"
        type  = "int"
        range = [0, 2]
      }
      field {
        name = "tags"
        type = "list"
        items {
          type   = "enum"
          values = ["polite", "curt"]
        }
      }
    }
    completion = {
      temperature     = 0
      max_tokens      = 400
      stop            = ["\n\n"]
      response_format = { type = "json_object" }
    }
  }
  # Unnamed: named "judge".
  scorer "llm_judge" {
    model        = "gpt-5-mini"
    instructions = "Is the answer polite?"
    field {
      name  = "score"
      type  = "int"
      range = [0, 1]
    }
  }
}
