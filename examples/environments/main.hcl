# One configuration, several environments (issue 12): cc plan --env dev
# and cc plan --env prod plan the same resources with each environment's
# values (env/dev.ccvars.hcl, env/prod.ccvars.hcl), each against its own
# state. Without --env, env.name is "" and the defaults below apply.
project = "shop"

variable "replicas" {
  type    = number
  default = 1
}

variable "log_level" {
  type    = string
  default = "debug"
}

variable "cache_size" {
  type    = string
  default = "1Gi"
}

volume "cache" {
  size = var.cache_size
}

scaling_group "web" {
  image   = "python:3.12-slim"
  command = ["python", "-m", "http.server", "8080"]
  replicas {
    min = var.replicas
    max = var.replicas * 2
  }
  env = {
    LOG_LEVEL = var.log_level
    CC_ENV    = env.name
  }
  ports = [8080]
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
}
