package functions_test

import (
	"testing"

	"github.com/screenagent/backend/shared/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
